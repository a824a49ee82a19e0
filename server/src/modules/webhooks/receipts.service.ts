import type { PostmarkWebhook, TwilioInboundMessage, TwilioStatusCallback } from '@photobooth/sdk/schemas'
import type { z } from 'zod'

import type { AppContext } from '../../context.js'
import { lift, suppress, TWILIO_UNSUBSCRIBED } from '../messages/index.js'
import type { MessageStatus } from '../../db/entities/outbox-message.entity.js'
import { RECEIPT_QUERIES, REPLAY_QUERIES } from './receipts.queries.js'
import type { SuppressionReason } from '../../db/entities/suppression.entity.js'
import { run } from '../../db/query.js'

type Ctx = Pick<AppContext, 'em'>
type Channel = 'email' | 'sms'

/**
 * The states a report may move a message from. A delivery never undoes a bounce or an undelivery
 * (reports come out of order); a send that failed on our side (a timeout) but was delivered is
 * delivered. A pending message reported delivered (its send's result not written yet, or a retry
 * after a lost answer) is not sent again.
 */
const REPORTED_FROM: Record<'delivered' | 'bounced' | 'undelivered', MessageStatus[]> = {
  delivered: ['pending', 'sent', 'failed'],
  bounced: ['pending', 'sent', 'delivered', 'failed'],
  undelivered: ['pending', 'sent', 'delivered', 'failed'],
}

type Report = {
  channel: Channel
  status: keyof typeof REPORTED_FROM
  /** Our message id, when the report carries it; the provider's otherwise. */
  messageId: string | null
  providerMessageId: string | null
  at?: Date | null
  reason?: string | null
}

/** One provider report applied to its message: at most one row, and only forward. */
async function report(em: Ctx['em'], { channel, status, messageId, providerMessageId, at, reason }: Report): Promise<void> {
  if (!messageId && !providerMessageId) return
  await run(em, RECEIPT_QUERIES.report, [
    status,
    at && !Number.isNaN(at.getTime()) ? at.toISOString() : null,
    reason ?? null,
    channel,
    messageId,
    providerMessageId,
    REPORTED_FROM[status],
  ])
}

/** Postmark's bounce types that mean the address does not work (https://postmarkapp.com/developer/api/bounce-api#bounce-types). */
const HARD_BOUNCES = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated'])

/** Postmark's suppression reasons (SubscriptionChange) as the list's. */
const POSTMARK_REASONS: Record<string, SuppressionReason> = { HardBounce: 'hard-bounce', SpamComplaint: 'spam-complaint' }

/**
 * A Postmark webhook: the message's state, and the suppression list. Postmark's `Details` (the
 * receiving server's words, which may quote the address) is not kept: the reason is Postmark's
 * name and description of the bounce type.
 */
export async function recordPostmarkEvent({ em }: Ctx, event: z.output<typeof PostmarkWebhook>): Promise<void> {
  const outboxId = event.Metadata?.['outboxMessageId']
  const found = {
    channel: 'email' as const,
    messageId: typeof outboxId === 'string' ? outboxId : null,
    providerMessageId: event.MessageID ?? null,
  }
  await em.transactional(async (tx) => {
    switch (event.RecordType) {
      case 'Delivery':
        return report(tx, { ...found, status: 'delivered', at: event.DeliveredAt ? new Date(event.DeliveredAt) : null })
      case 'Bounce': {
        const reason = [event.Name ?? event.Type ?? 'Bounce', event.Description].filter(Boolean).join(': ')
        await report(tx, { ...found, status: 'bounced', reason })
        if (HARD_BOUNCES.has(event.Type ?? '') || event.Inactive === true) await suppress(tx, 'email', event.Email, 'hard-bounce')
        return
      }
      case 'SpamComplaint':
        await report(tx, { ...found, status: 'bounced', reason: 'Spam complaint: the guest marked the email as spam' })
        return suppress(tx, 'email', event.Email, 'spam-complaint')
      case 'SubscriptionChange':
        if (event.SuppressSending === true)
          return suppress(tx, 'email', event.Recipient, POSTMARK_REASONS[event.SuppressionReason ?? ''] ?? 'unsubscribed')
        if (event.SuppressSending === false) await lift(tx, 'email', event.Recipient)
        return
      // Opens, clicks and inbound mail: not kept.
    }
  })
}

/** Twilio's message states that settle an SMS (https://www.twilio.com/docs/messaging/api/message-resource#message-status-values). */
const TWILIO_DELIVERED = new Set(['delivered', 'read'])
const TWILIO_UNDELIVERED = new Set(['undelivered', 'failed'])

/** A Twilio status callback for the SMS named in its URL (or by its sid). */
export async function recordTwilioStatus(
  { em }: Ctx,
  { messageId, callback }: { messageId: string | null; callback: z.output<typeof TwilioStatusCallback> },
): Promise<void> {
  const found = { channel: 'sms' as const, messageId, providerMessageId: callback.MessageSid }
  const status = callback.MessageStatus.toLowerCase()
  await em.transactional(async (tx) => {
    if (TWILIO_DELIVERED.has(status)) return report(tx, { ...found, status: 'delivered', at: new Date() })
    if (!TWILIO_UNDELIVERED.has(status)) return
    const code = callback.ErrorCode ? ` (Twilio error ${callback.ErrorCode})` : ''
    await report(tx, { ...found, status: 'undelivered', reason: `The carrier did not deliver it${code}` })
    if (Number(callback.ErrorCode) === TWILIO_UNSUBSCRIBED) await suppress(tx, 'sms', callback.To, 'unsubscribed')
  })
}

/** Twilio's default opt-out and opt-in keywords (https://help.twilio.com/articles/223134027), matched on the whole body. */
const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT'])
const START_WORDS = new Set(['START', 'UNSTOP', 'YES'])

/**
 * A guest's SMS to the service's number: STOP suppresses their number, START lifts it; anything else
 * is not kept. Each is applied once (`replayed` otherwise): Twilio's signature covers the URL and the
 * fields, not the time, so a signed STOP captured and sent again after the guest's START would
 * silence them anew, and a START sent again would message a guest who said STOP. A delivery is known
 * by its `I-Twilio-Idempotency-Token` (the same on Twilio's retries) and by the message's own sid,
 * which the signature covers (a replay with another token still carries it).
 */
export async function recordTwilioInbound(
  { em }: Ctx,
  message: z.output<typeof TwilioInboundMessage>,
  delivery: { idempotencyToken?: string } = {},
): Promise<'applied' | 'replayed'> {
  const word = (message.OptOutType ?? message.Body ?? '').trim().toUpperCase()
  if (!STOP_WORDS.has(word) && !START_WORDS.has(word)) return 'applied'
  const sid = typeof message['MessageSid'] === 'string' ? message['MessageSid'] : undefined
  const keys = [...(delivery.idempotencyToken ? [`twilio-token:${delivery.idempotencyToken}`] : []), ...(sid ? [`twilio-sid:${sid}`] : [])]
  return em.transactional(async (tx) => {
    if (keys.length > 0) await run(tx, REPLAY_QUERIES.forget)
    let seen = false
    for (const key of keys) seen = (await run(tx, REPLAY_QUERIES.remember, [key])).length === 0 || seen
    if (seen) return 'replayed'
    if (STOP_WORDS.has(word)) await suppress(tx, 'sms', message.From, 'unsubscribed')
    else await lift(tx, 'sms', message.From)
    return 'applied'
  })
}
