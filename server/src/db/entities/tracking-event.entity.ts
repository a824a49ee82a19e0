import { BigIntType, EntitySchema } from '@mikro-orm/core'
import { SHARE_CHANNELS } from '@photobooth/sdk/schemas'

import { Event } from './event.entity.js'
import { Session } from './session.entity.js'

export const TRACKING_KINDS = ['view', 'share', 'download', 'zip'] as const
export type TrackingKind = (typeof TRACKING_KINDS)[number]
export type ShareChannel = (typeof SHARE_CHANNELS)[number]

/** One count: kind, event, session and time. Nothing about the visitor (no IP, no user agent, no cookie). */
export class TrackingEvent {
  /** Numbered by the database (an identity column); a count never reaches 2^53. */
  id!: number
  kind!: TrackingKind
  /** The share button pressed: present on shares, and only on shares. */
  channel?: ShareChannel
  event!: Event
  /** Absent on a view of an event's page. */
  session?: Session
  createdAt = new Date()
}

export const TrackingEventSchema = new EntitySchema<TrackingEvent>({
  class: TrackingEvent,
  tableName: 'tracking_event',
  indexes: [
    { name: 'tracking_event_event_id_kind_index', properties: ['event', 'kind'] },
    {
      name: 'tracking_event_session_id_index',
      expression: 'create index tracking_event_session_id_index on tracking_event (session_id) where session_id is not null',
    },
  ],
  checks: [{ name: 'tracking_event_share_channel_check', expression: "(kind = 'share') = (channel is not null)" }],
  properties: {
    id: { type: new BigIntType('number'), columnType: 'bigint', primary: true, autoincrement: true, generated: 'identity' },
    // Enum properties: MikroORM checks them against TRACKING_KINDS and SHARE_CHANNELS (tracking_event_kind_check, _channel_check).
    kind: { enum: true, items: () => TRACKING_KINDS },
    channel: { enum: true, items: () => SHARE_CHANNELS, nullable: true },
    event: {
      kind: 'm:1',
      entity: () => Event,
      foreignKeyName: 'tracking_event_event_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    session: {
      kind: 'm:1',
      entity: () => Session,
      nullable: true,
      foreignKeyName: 'tracking_event_session_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
