import { EntitySchema } from '@mikro-orm/core'

export class Event {
  id!: string
  slug!: string
  name!: string
  startAt!: Date
  /** A private event hides its index page, not the links to its sessions. */
  isPrivate = false
  createdAt = new Date()
}

export const EventSchema = new EntitySchema<Event>({
  class: Event,
  tableName: 'event',
  properties: {
    id: { type: 'string', primary: true },
    slug: { type: 'string', unique: true },
    name: { type: 'string' },
    startAt: { type: 'Date' },
    isPrivate: { type: 'boolean' },
    createdAt: { type: 'Date' },
  },
})
