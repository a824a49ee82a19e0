import { EntitySchema, type OptionalProps } from '@mikro-orm/core'

import { EventSet } from './event-set.entity.js'

export const SESSION_STATUSES = ['active', 'completed', 'cancelled'] as const
export type SessionStatus = (typeof SESSION_STATUSES)[number]

export class Session {
  /** Counted by the copies worker from the database default: registration does not name it. */
  declare [OptionalProps]?: 'imagesSettled' | 'listed'
  /** Also the public gallery id, so it carries 128 random bits. */
  id!: string
  set!: EventSet
  label!: string
  status: SessionStatus = 'active'
  /** On the event page only when every guest of it agreed to be listed. */
  listed = true
  /** Kept with the session so "live" (completed with photos) is a plain indexed filter. */
  photoCount = 0
  createdAt = new Date()
  completedAt?: Date
  cancelledAt?: Date
  /** Photos whose copies were settled (made or failed): part of the gallery's version. */
  imagesSettled = 0
  /** When every photo's copies were settled: the gallery link goes out then (or after a bounded wait). */
  imagesReadyAt?: Date
}

export const SessionSchema = new EntitySchema<Session>({
  class: Session,
  tableName: 'session',
  // The event page and the booth queue read sessions per set, newest or oldest first.
  indexes: [
    {
      name: 'session_live_idx',
      expression: `create index session_live_idx on session (set_id, created_at desc, id desc) where status = 'completed' and photo_count > 0`,
    },
    {
      name: 'session_active_idx',
      expression: `create index session_active_idx on session (set_id, created_at, id) where status = 'active'`,
    },
    // Staff list a set's sessions newest first, whatever their state.
    {
      name: 'session_set_id_created_at_index',
      expression: `create index session_set_id_created_at_index on session (set_id, created_at desc, id desc)`,
    },
  ],
  checks: [{ name: 'session_photo_count_check', expression: 'photo_count >= 0' }],
  properties: {
    id: { type: 'text', primary: true },
    set: { kind: 'm:1', entity: () => EventSet, foreignKeyName: 'session_set_id_fkey', deleteRule: 'cascade', updateRule: 'no action' },
    label: { type: 'text' },
    // An enum property: MikroORM checks it against SESSION_STATUSES as session_status_check.
    status: { enum: true, items: () => SESSION_STATUSES, default: 'active' },
    listed: { type: 'boolean', default: true },
    photoCount: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    completedAt: { type: 'Date', nullable: true },
    cancelledAt: { type: 'Date', nullable: true },
    imagesSettled: { type: 'integer', default: 0 },
    imagesReadyAt: { type: 'Date', nullable: true },
  },
})
