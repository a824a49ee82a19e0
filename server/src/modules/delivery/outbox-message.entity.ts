import { EntitySchema } from '@mikro-orm/core'

import { SessionGuest } from '../sessions/session-guest.entity.js'
import { Session } from '../sessions/session.entity.js'

export const CHANNELS = ['email', 'sms'] as const
export type Channel = (typeof CHANNELS)[number]
export const MESSAGE_STATUSES = ['pending', 'sent', 'failed'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

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
  sentAt?: Date
}

export const OutboxMessageSchema = new EntitySchema<OutboxMessage>({
  class: OutboxMessage,
  tableName: 'outbox_message',
  properties: {
    id: { type: 'string', primary: true },
    session: { kind: 'm:1', entity: () => Session, deleteRule: 'cascade' },
    guest: { kind: 'm:1', entity: () => SessionGuest, fieldName: 'session_guest_id', deleteRule: 'cascade' },
    channel: { enum: true, items: () => CHANNELS },
    recipient: { type: 'string' },
    link: { type: 'string' },
    status: { enum: true, items: () => MESSAGE_STATUSES },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: 'Date' },
    providerMessageId: { type: 'string', nullable: true },
    lastError: { type: 'string', nullable: true },
    createdAt: { type: 'Date' },
    sentAt: { type: 'Date', nullable: true },
  },
})
