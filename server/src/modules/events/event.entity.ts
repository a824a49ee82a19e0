import { EntitySchema } from '@mikro-orm/core'

/** Lowercase words joined by single hyphens: what an event's or a set's slug may be. */
export const SLUG_CHECK = "slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'"

export class Event {
  id!: string
  slug!: string
  name!: string
  startAt!: Date
  /** A private event hides its index page, not the links to its sessions. */
  isPrivate = false
  createdAt = new Date()
  /** When staff last changed it or one of its sets (`touchEvent`): part of the galleries' ETags. */
  updatedAt = new Date()
}

export const EventSchema = new EntitySchema<Event>({
  class: Event,
  tableName: 'event',
  // Checks are written as PostgreSQL prints them back (no `between`): MikroORM's diff compares their text.
  checks: [
    { name: 'event_slug_check', expression: SLUG_CHECK },
    { name: 'event_name_check', expression: 'length(name) >= 1 and length(name) <= 200' },
  ],
  properties: {
    id: { type: 'text', primary: true },
    slug: { type: 'text', unique: 'event_slug_key' },
    name: { type: 'text' },
    startAt: { type: 'Date' },
    isPrivate: { type: 'boolean', default: false },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    updatedAt: { type: 'Date', defaultRaw: 'now()', onUpdate: () => new Date() },
  },
})
