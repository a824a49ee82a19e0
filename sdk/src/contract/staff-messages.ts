import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { Retried, StaffMessage } from '../schemas/staff.js'
import { notFound, pathKey, staffChange, staffConflict } from './base.js'

const tags = ['Staff']
const sessionParams = z.object({ sessionId: pathKey(EXAMPLE_IDS.session) })

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
