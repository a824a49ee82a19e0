import { UniqueConstraintViolationException } from '@mikro-orm/core'
import { raw, type EntityManager } from '@mikro-orm/postgresql'
import type { StaffMessage } from '@photobooth/sdk/schemas'
import type { z } from 'zod'

import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { AppError } from '../../errors.js'
import { Event } from '../../db/entities/event.entity.js'
import { NO_SUCH_EVENT } from '../events/index.js'
import { NO_SUCH_SESSION } from '../sessions/index.js'
import { Session } from '../../db/entities/session.entity.js'
import { OutboxMessage } from '../../db/entities/outbox-message.entity.js'
import { RETRY_QUERIES } from './outbox.queries.js'
import { notifyDispatchers } from './outbox.service.js'
import { run } from '../../db/query.js'

export type StaffMessageBody = z.output<typeof StaffMessage>

const toStaffMessage = (message: OutboxMessage): StaffMessageBody => ({
  id: message.id,
  channel: message.channel,
  recipient: message.recipient,
  status: message.status,
  attempts: message.attempts,
  lastError: message.lastError ?? null,
  providerMessageId: message.providerMessageId ?? null,
  createdAt: message.createdAt.getTime(),
  sentAt: message.sentAt?.getTime() ?? null,
  deliveredAt: message.deliveredAt?.getTime() ?? null,
})

/** The gallery-link messages of these sessions by guest id, each guest's oldest first: one query. */
export async function messagesByGuest(em: EntityManager, sessionIds: readonly string[]): Promise<Map<string, StaffMessageBody[]>> {
  if (sessionIds.length === 0) return new Map()
  const messages = await em.find(OutboxMessage, { session: { $in: [...sessionIds] } }, { orderBy: { createdAt: 'asc', id: 'asc' } })
  return new Map([...groupBy(messages, (message) => message.guest.id)].map(([guestId, rows]) => [guestId, rows.map(toStaffMessage)]))
}

/**
 * Sends a failed message again: pending, due now, with the dispatcher's whole retry time again
 * (counted from `retrySince`: a retry after an outage deserves the full backoff). `lastError` stays
 * until the next attempt, so staff still see why it failed. Answers the message as the retry left it.
 */
export async function retryMessage(
  { em, wakeDelivery }: Pick<AppContext, 'em' | 'wakeDelivery'>,
  { messageId }: { messageId: string },
): Promise<StaffMessageBody> {
  const message = await em.transactional(async (tx) => {
    const moved = await tx
      .nativeUpdate(
        OutboxMessage,
        { id: messageId, status: 'failed' },
        { status: 'pending', attempts: 0, nextAttemptAt: raw('now()') as Date, retrySince: raw('now()') as Date },
      )
      .catch((error: unknown) => {
        // The partial unique index: a guest has one waiting message per channel (a resend queued it).
        if (error instanceof UniqueConstraintViolationException) {
          throw new AppError('message_already_queued', 'A message to this guest on this channel is already waiting to be sent')
        }
        throw error
      })
    const found = await tx.findOne(OutboxMessage, messageId)
    if (!found) throw new AppError('no_such_message', 'no such message')
    if (moved === 0) throw new AppError('message_not_failed', `Only a failed message can be retried; this one is ${found.status}`)
    await notifyDispatchers(tx)
    return found
  })
  wakeDelivery()
  return toStaffMessage(message)
}

/**
 * After a provider outage: every failed message of a session, or of an event, tried again at once
 * (RETRY_QUERIES). Answers how many were.
 */
export async function retryFailedMessages(
  { em, wakeDelivery }: Pick<AppContext, 'em' | 'wakeDelivery'>,
  scope: { sessionId: string } | { eventId: string },
): Promise<{ retried: number }> {
  const retried = await em.transactional(async (tx) => {
    if ('sessionId' in scope) {
      if ((await tx.count(Session, { id: scope.sessionId })) === 0) throw new AppError('no_such_session', NO_SUCH_SESSION)
    } else if ((await tx.count(Event, { id: scope.eventId })) === 0) throw new AppError('no_such_event', NO_SUCH_EVENT)
    const [query, id] = 'sessionId' in scope ? [RETRY_QUERIES.session, scope.sessionId] : [RETRY_QUERIES.event, scope.eventId]
    const rows = await run(tx, query, [id]).catch((error: unknown) => {
      // A resend racing this one queued a message for the same guest and channel first.
      if (error instanceof UniqueConstraintViolationException)
        throw new AppError('concurrent_change', 'Messages were queued meanwhile: try again')
      throw error
    })
    if (rows.length > 0) await notifyDispatchers(tx)
    return rows.length
  })
  if (retried > 0) wakeDelivery()
  return { retried }
}
