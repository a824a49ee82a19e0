import { EntitySchema } from '@mikro-orm/core'

import { Event, SLUG_CHECK } from './event.entity.js'

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
  uniques: [{ name: 'event_set_event_id_slug_unique', properties: ['event', 'slug'] }],
  checks: [
    { name: 'event_set_slug_check', expression: SLUG_CHECK },
    { name: 'event_set_name_check', expression: 'length(name) >= 1 and length(name) <= 200' },
  ],
  properties: {
    id: { type: 'text', primary: true },
    // Every foreign key is named and ruled as its migration made it; MikroORM's own default would add `on update cascade`.
    event: { kind: 'm:1', entity: () => Event, foreignKeyName: 'event_set_event_id_fkey', deleteRule: 'cascade', updateRule: 'no action' },
    slug: { type: 'text' },
    name: { type: 'text' },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
