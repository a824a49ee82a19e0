import { EntitySchema } from '@mikro-orm/core'

import { EventSet } from '../events/event-set.entity.js'

export const SESSION_STATUSES = ['active', 'completed', 'cancelled'] as const
export type SessionStatus = (typeof SESSION_STATUSES)[number]

export class Session {
  /** Also the public gallery id, so it carries 128 random bits. */
  id!: string
  set!: EventSet
  label!: string
  status: SessionStatus = 'active'
  /** Kept with the session so "live" (completed with photos) is a plain indexed filter. */
  photoCount = 0
  createdAt = new Date()
  completedAt?: Date
  cancelledAt?: Date
}

export const SessionSchema = new EntitySchema<Session>({
  class: Session,
  tableName: 'session',
  properties: {
    id: { type: 'string', primary: true },
    set: { kind: 'm:1', entity: () => EventSet, deleteRule: 'cascade' },
    label: { type: 'string' },
    status: { enum: true, items: () => SESSION_STATUSES },
    photoCount: { type: 'integer' },
    createdAt: { type: 'Date' },
    completedAt: { type: 'Date', nullable: true },
    cancelledAt: { type: 'Date', nullable: true },
  },
})
