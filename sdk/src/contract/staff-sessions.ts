import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { Deleted, Resent, Retried, SessionFilter, SessionPage, SessionStats, StaffMessage, StaffSession } from '../schemas/staff.js'
import { ErrorRef, notFound, pathKey, staffChange, staffConflict, staffRead } from './base.js'

const tags = ['Staff']
const sessionParams = z.object({ sessionId: pathKey(EXAMPLE_IDS.session) })

export const staffSessions = {
  list: staffRead
    .route({
      method: 'GET',
      path: '/staff/events/{eventId}/sessions',
      operationId: 'listStaffSessions',
      summary: "An event's sessions, newest first, with their guests and each gallery-link message's delivery state",
      description: 'Filter by set and status; page with `cursor` (the previous page’s `nextCursor`).',
      tags,
    })
    .errors(notFound)
    .input(SessionFilter)
    .output(SessionPage),

  get: staffRead
    .route({ method: 'GET', path: '/staff/sessions/{sessionId}', operationId: 'getStaffSession', summary: 'One session with its guests and messages', tags })
    .errors(notFound)
    .input(sessionParams)
    .output(StaffSession),

  stats: staffRead
    .route({
      method: 'GET',
      path: '/staff/sessions/{sessionId}/stats',
      operationId: 'getSessionStats',
      summary: "A session's numbers: views, shares by channel, downloads, zips, guests and messages",
      tags,
    })
    .errors(notFound)
    .input(sessionParams)
    .output(SessionStats),

  resend: staffChange
    .route({
      method: 'POST',
      path: '/staff/sessions/{sessionId}/resend',
      operationId: 'resendGalleryLinks',
      summary: 'Send the gallery link to every guest again, by email and SMS',
      description:
        'Queues new messages. A guest and channel with a message still waiting, or sent within the last minute, is skipped, so a second click queues nothing. 409 unless the session is a live gallery (completed, with photos).',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...notFound, ...staffConflict })
    .input(z.object({ params: sessionParams }))
    .output(Resent),

  cancel: staffChange
    .route({
      method: 'POST',
      path: '/staff/sessions/{sessionId}/cancel',
      operationId: 'cancelStaffSession',
      summary: 'Cancel an active session (the booth then answers 409 for it)',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...notFound, ...staffConflict })
    .input(z.object({ params: sessionParams }))
    .output(StaffSession),

  delete: staffChange
    .route({
      method: 'DELETE',
      path: '/staff/sessions/{sessionId}',
      operationId: 'deleteSession',
      summary: 'Delete a session: its photos leave storage and its guests’ data is erased',
      tags,
      inputStructure: 'detailed',
    })
    .errors(notFound)
    .input(z.object({ params: sessionParams }))
    .output(Deleted),
}

export const staffMessages = {
  retry: staffChange
    .route({
      method: 'POST',
      path: '/staff/messages/{messageId}/retry',
      operationId: 'retryMessage',
      summary: 'Try a failed gallery-link message again, now',
      description: '409 unless the message failed.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...notFound, ...staffConflict })
    .input(z.object({ params: z.object({ messageId: pathKey(EXAMPLE_IDS.message) }) }))
    .output(StaffMessage),

  retrySession: staffChange
    .route({
      method: 'POST',
      path: '/staff/sessions/{sessionId}/messages/retry',
      operationId: 'retrySessionMessages',
      summary: "Try all of a session's failed gallery-link messages again, now",
      description:
        'After a provider outage: every guest and channel whose newest message failed gets it pending and due now, with the whole retry time again. A guest and channel with a message already waiting is skipped. `retried: 0` when nothing failed.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...notFound, ...staffConflict })
    .input(z.object({ params: sessionParams }))
    .output(Retried),

  retryEvent: staffChange
    .route({
      method: 'POST',
      path: '/staff/events/{eventId}/messages/retry',
      operationId: 'retryEventMessages',
      summary: "Try all of an event's failed gallery-link messages again, now",
      description: 'As `retrySessionMessages`, for every session of the event.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...notFound, ...staffConflict })
    .input(z.object({ params: z.object({ eventId: pathKey(EXAMPLE_IDS.event) }) }))
    .output(Retried),
}

/** Express streams the export itself (server/src/modules/exports); the document and the SDK describe it. */
export const staffExports = {
  exportGuests: staffRead
    .route({
      method: 'GET',
      path: '/staff/events/{eventId}/guests.csv',
      operationId: 'exportGuests',
      summary: "An event's guests as CSV for the organiser: name, email, phone, session label, gallery link, time",
      description:
        'UTF-8 with a byte order mark, RFC 4180 quoting, streamed. A value that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `\'`.',
      tags,
      outputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: {
          ...operation.responses,
          '200': {
            description: 'The CSV, streamed',
            headers: { 'Content-Disposition': { description: 'attachment; filename="<event slug>-guests.csv"', schema: { type: 'string' } } },
            // The answer for an event without guests: the byte order mark and the header row.
            content: { 'text/csv': { schema: { type: 'string', examples: ['\uFEFFName,Email,Phone,Session label,Gallery link,Time\r\n'] } } },
          },
          '404': { description: 'No such event: `{ error }`.', content: { 'application/json': { schema: ErrorRef } } },
        },
      }),
    })
    .errors(notFound)
    .input(z.object({ eventId: pathKey(EXAMPLE_IDS.event) }))
    .output(
      z.object({
        headers: z.record(z.string(), z.string()),
        body: z.custom<ReadableStream<Uint8Array>>((value) => value instanceof ReadableStream),
      }),
    ),
}
