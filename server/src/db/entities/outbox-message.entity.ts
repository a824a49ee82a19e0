import { EntitySchema } from '@mikro-orm/core'
import { MESSAGE_STATES } from '@photobooth/sdk/schemas'

import { SessionGuest } from './session-guest.entity.js'
import { Session } from './session.entity.js'

export const CHANNELS = ['email', 'sms'] as const
export type Channel = (typeof CHANNELS)[number]
export type MessageStatus = (typeof MESSAGE_STATES)[number]

/** A gallery link to send, written with the completion that causes it; the dispatcher sends it. */
export class OutboxMessage {
  id!: string
  session!: Session
  guest!: SessionGuest
  channel!: Channel
  recipient!: string
  link!: string
  status: MessageStatus = 'pending'
  attempts = 0
  nextAttemptAt = new Date()
  providerMessageId?: string
  lastError?: string
  createdAt = new Date()
  /** Since when it has been tried: its queueing, or staff's last retry (the retry time counts from here). */
  retrySince = new Date()
  sentAt?: Date
  /** When the provider reported it delivered (a webhook: its own time). */
  deliveredAt?: Date
}

export const OutboxMessageSchema = new EntitySchema<OutboxMessage>({
  class: OutboxMessage,
  tableName: 'outbox_message',
  indexes: [
    // What the dispatcher claims, one channel at a time: the pending messages by channel and due time.
    {
      name: 'outbox_message_channel_due_idx',
      expression: `create index outbox_message_channel_due_idx on outbox_message (channel, next_attempt_at) where status = 'pending'`,
    },
    // A guest has at most one message waiting per channel: a resend clicked twice queues one.
    {
      name: 'outbox_message_guest_channel_pending_unique',
      expression: `create unique index outbox_message_guest_channel_pending_unique on outbox_message (session_guest_id, channel) where status = 'pending'`,
    },
    { name: 'outbox_message_session_id_index', properties: ['session'] },
    // The webhooks find a message by the id its provider gave it.
    { name: 'outbox_message_provider_message_id_index', properties: ['providerMessageId'] },
  ],
  checks: [{ name: 'outbox_message_attempts_check', expression: 'attempts >= 0' }],
  properties: {
    id: { type: 'text', primary: true },
    session: {
      kind: 'm:1',
      entity: () => Session,
      foreignKeyName: 'outbox_message_session_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    guest: {
      kind: 'm:1',
      entity: () => SessionGuest,
      fieldName: 'session_guest_id',
      foreignKeyName: 'outbox_message_session_guest_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    // Enum properties: MikroORM checks them against CHANNELS and MESSAGE_STATES (outbox_message_channel_check, _status_check).
    channel: { enum: true, items: () => CHANNELS },
    recipient: { type: 'text' },
    link: { type: 'text' },
    status: { enum: true, items: () => MESSAGE_STATES, default: 'pending' },
    attempts: { type: 'integer', default: 0 },
    nextAttemptAt: { type: 'Date', defaultRaw: 'now()' },
    providerMessageId: { type: 'text', nullable: true },
    lastError: { type: 'text', nullable: true },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    retrySince: { type: 'Date', defaultRaw: 'now()' },
    sentAt: { type: 'Date', nullable: true },
    deliveredAt: { type: 'Date', nullable: true },
  },
})
