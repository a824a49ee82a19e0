import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { PersonQuery, Retried, StaffMessage } from '../schemas/staff.js'
import { Suppression } from '../schemas/webhooks.js'
import { badRequestOf, conflictOf, notFoundOf, pathKey, staffChange, staffRead } from './base.js'

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
    .meta({ role: 'staff' })
    .errors({ ...notFoundOf('no_such_message'), ...conflictOf('message_already_queued', 'message_not_failed') })
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
    .meta({ role: 'staff' })
    .errors({ ...notFoundOf('no_such_session'), ...conflictOf('concurrent_change') })
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
    .meta({ role: 'staff' })
    .errors({ ...notFoundOf('no_such_event'), ...conflictOf('concurrent_change') })
    .input(z.object({ params: z.object({ eventId: pathKey(EXAMPLE_IDS.event) }) }))
    .output(Retried),

  findSuppressions: staffRead
    .route({
      method: 'GET',
      path: '/staff/suppressions',
      operationId: 'findSuppressions',
      summary: 'Whether an email or a phone is on the suppression list, and why',
      description:
        "Exactly one of `email` and `phone`. A suppressed address gets no gallery link: its messages are recorded `suppressed`. The list holds no address, only a one-way hash of each, so it outlives a guest's erasure (an opt-out stays honoured).",
      tags,
    })
    .meta({ role: 'staff' })
    .errors(badRequestOf('invalid_phone'))
    .input(PersonQuery)
    .output(
      z
        .object({ suppressions: z.array(Suppression) })
        .meta({ examples: [{ suppressions: [{ channel: 'email', reason: 'hard-bounce', since: 1_764_173_634_907 }] }] }),
    ),

  liftSuppression: staffChange
    .route({
      method: 'POST',
      path: '/staff/suppressions/lift',
      operationId: 'liftSuppression',
      summary: 'Take an email off the suppression list (the guest fixed their mailbox, or asked again)',
      description:
        'With Postmark configured, the address is also reactivated on its message stream (`liftedAtPostmark`), which refuses it otherwise. An SMS opt-out is lifted only by the guest, texting START. 404 `{ "error": "the address is not suppressed" }` when it is not on the list.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .errors(notFoundOf('not_suppressed'))
    .input(
      z.object({ body: z.strictObject({ email: PersonQuery.shape.email.unwrap() }).meta({ examples: [{ email: 'ada@example.org' }] }) }),
    )
    .output(
      z
        .object({
          lifted: z.literal(true),
          liftedAtPostmark: z.boolean().describe('False when Postmark is not configured, or did not answer: reactivate the address there'),
        })
        .meta({ examples: [{ lifted: true, liftedAtPostmark: true }] }),
    ),
}
