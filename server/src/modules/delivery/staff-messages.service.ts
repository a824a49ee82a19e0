import { UniqueConstraintViolationException } from '@mikro-orm/core'
import { raw, type EntityManager } from '@mikro-orm/postgresql'
import type { StaffMessage } from '@photobooth/sdk/schemas'
import type { z } from 'zod'

import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { AppError } from '../../errors.js'
import { OutboxMessage } from './outbox-message.entity.js'
import { notifyDispatchers } from './outbox.service.js'

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
})

/** The gallery-link messages of these sessions by guest id, each guest's oldest first: one query. */
export async function messagesByGuest(em: EntityManager, sessionIds: readonly string[]): Promise<Map<string, StaffMessageBody[]>> {
  if (sessionIds.length === 0) return new Map()
  const messages = await em.find(OutboxMessage, { session: { $in: [...sessionIds] } }, { orderBy: { createdAt: 'asc', id: 'asc' } })
  return new Map([...groupBy(messages, (message) => message.guest.id)].map(([guestId, rows]) => [guestId, rows.map(toStaffMessage)]))
}

/**
 * Sends a failed message again: pending, due now, with the dispatcher's whole budget of attempts
 * (it fails a message whose count has reached its maximum at the first transient error, and a
 * retry after an outage deserves the full backoff). `lastError` stays until the next attempt, so
 * staff still see why it failed. Answers the message as the retry left it.
 */
export async function retryMessage({ em, wakeDelivery }: Pick<AppContext, 'em' | 'wakeDelivery'>, { messageId }: { messageId: string }): Promise<StaffMessageBody> {
  const message = await em.transactional(async (tx) => {
    const moved = await tx
      .nativeUpdate(OutboxMessage, { id: messageId, status: 'failed' }, { status: 'pending', attempts: 0, nextAttemptAt: raw('now()') as Date })
      .catch((error: unknown) => {
        // The partial unique index: a guest has one waiting message per channel (a resend queued it).
        if (error instanceof UniqueConstraintViolationException) {
          throw new AppError('CONFLICT', 'A message to this guest on this channel is already waiting to be sent')
        }
        throw error
      })
    const found = await tx.findOne(OutboxMessage, messageId)
    if (!found) throw new AppError('NOT_FOUND', 'no such message')
    if (moved === 0) throw new AppError('CONFLICT', `Only a failed message can be retried; this one is ${found.status}`)
    await notifyDispatchers(tx)
    return found
  })
  wakeDelivery()
  return toStaffMessage(message)
}
