import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { AnyBody, badRequestOf, base, ErrorRef, rateLimited } from './base.js'

export const tracking = {
  track: base
    .route({
      method: 'POST',
      path: '/track',
      operationId: 'track',
      summary: 'Count a view or a share click',
      description:
        'The body is a JSON document, sent as `text/plain` (a page-close `navigator.sendBeacon` needs no preflight) or `application/json`. A view of a gallery counts only while the gallery is live; a view of an event page only for a public event. Nothing about the visitor is stored. Rate limited to 60 per minute per client IP.',
      tags: ['Tracking'],
      successStatus: 204,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/TrackBeacon' } },
            // A beacon's body is text holding the JSON document: said as such, so that a validating proxy
            // or a generated client takes a real beacon (a string, not an object).
            'text/plain': {
              schema: {
                type: 'string',
                contentMediaType: 'application/json',
                contentSchema: { $ref: '#/components/schemas/TrackBeacon' },
                examples: ['{"kind":"view","sessionId":"Zt5oP1vC9sDk3MwE7aRgQh"}'],
              } as OpenAPI.SchemaObject,
            },
          },
        },
        responses: {
          ...operation.responses,
          '204': { description: 'Counted' },
          '400': {
            description:
              '`{ "error": "bad body" }` for anything off the variants; `{ "error": "no such session or event" }` when the id names nothing countable.',
            content: { 'application/json': { schema: ErrorRef } },
          },
        },
      }),
    })
    .meta({
      rateLimit: { bucket: 'track', perMinute: 60 },
      textBody: {
        maxBytes: 4 * 1024,
        tooLarge: { status: 400, error: 'bad body', code: 'bad_body' },
        notText: { error: 'bad body', code: 'bad_body' },
      },
    })
    .errors({ ...badRequestOf('no_such_target'), ...rateLimited })
    .input(AnyBody)
    .output(z.void()),
}
