import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { ErrorRef, notFoundOf, pathKey, staffRead } from './base.js'

const tags = ['Staff']

/** Express streams the export itself (server/src/modules/exports); the document and the SDK describe it. */
export const staffExports = {
  exportGuests: staffRead
    .route({
      method: 'GET',
      path: '/staff/events/{eventId}/guests.csv',
      operationId: 'exportGuests',
      summary:
        "An event's guests as CSV for the organiser: name, email, phone, session label, gallery link, time, consent (marketing opt-in, listed, privacy-notice version) and delivery states",
      description:
        "UTF-8 with a byte order mark, RFC 4180 quoting, streamed. A value that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`.",
      tags,
      outputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: {
          ...operation.responses,
          '200': {
            description: 'The CSV, streamed',
            headers: {
              'Content-Disposition': { description: 'attachment; filename="<event slug>-guests.csv"', schema: { type: 'string' } },
            },
            // The answer for an event without guests: the byte order mark and the header row.
            content: {
              'text/csv': {
                schema: {
                  type: 'string',
                  examples: [
                    '\uFEFFName,Email,Phone,Session label,Gallery link,Time,Marketing opt-in,Agreed to listing,Privacy notice version,Email delivery,SMS delivery\r\n',
                  ],
                },
              },
            },
          },
          '404': { description: 'No such event: `{ error }`.', content: { 'application/json': { schema: ErrorRef } } },
        },
      }),
    })
    .meta({ role: 'manager' })
    .errors(notFoundOf('no_such_event'))
    .input(z.object({ eventId: pathKey(EXAMPLE_IDS.event) }))
    .output(
      z.object({
        headers: z.record(z.string(), z.string()),
        body: z.custom<ReadableStream<Uint8Array>>((value) => value instanceof ReadableStream),
      }),
    ),
}
