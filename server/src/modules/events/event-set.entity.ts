import { EntitySchema } from '@mikro-orm/core'

import { Event } from './event.entity.js'

/** A booth or station within an event. */
export class EventSet {
  id!: string
  event!: Event
  slug!: string
  name!: string
  createdAt = new Date()
}

export const EventSetSchema = new EntitySchema<EventSet>({
  class: EventSet,
  tableName: 'event_set',
  uniques: [{ properties: ['event', 'slug'] }],
  properties: {
    id: { type: 'string', primary: true },
    event: { kind: 'm:1', entity: () => Event, deleteRule: 'cascade' },
    slug: { type: 'string' },
    name: { type: 'string' },
    createdAt: { type: 'Date' },
  },
})
