import { EntitySchema, PrimaryKeyProp } from '@mikro-orm/core'

import { Event } from './event.entity.js'

/**
 * A privacy-notice version an event has published (its current one included): what a registration
 * may name as the notice its guests read. Written by the database itself, a trigger on the event's
 * row (migration 20261130-privacy-notices), never by our code.
 */
export class EventPrivacyNotice {
  declare [PrimaryKeyProp]?: ['event', 'version']
  event!: Event
  version!: string
  publishedAt = new Date()
}

export const EventPrivacyNoticeSchema = new EntitySchema<EventPrivacyNotice>({
  class: EventPrivacyNotice,
  tableName: 'event_privacy_notice',
  properties: {
    event: {
      kind: 'm:1',
      entity: () => Event,
      primary: true,
      foreignKeyName: 'event_privacy_notice_event_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    version: { type: 'text', primary: true },
    publishedAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
