import { z } from 'zod'

import { query } from '../../db/query.js'
import { SHARE_CHANNELS } from '@photobooth/sdk/schemas'

import { epochMillis } from '../../db/sql.js'

/**
 * The staff's numbers, as SQL: aggregates the entity manager has no words for (counts by kind in
 * one pass, an hourly series with its empty hours). Each answer is one or two statements whatever
 * the size of the event. `?` placeholders, run through `em.execute`.
 */

/** Tracking rows `t` counted by kind, shares also by channel (`share_<channel>`). */
const TRACKING_COUNTS = [
  `count(*) filter (where t.kind = 'view')::int as views`,
  `count(*) filter (where t.kind = 'share')::int as shares`,
  ...SHARE_CHANNELS.map((channel) => `count(*) filter (where t.channel = '${channel}')::int as share_${channel}`),
  `count(*) filter (where t.kind = 'download')::int as downloads`,
  `count(*) filter (where t.kind = 'zip')::int as zips`,
].join(', ')

/** The columns of TRACKING_COUNTS. */
const TRACKING_COUNTS_ROW = {
  views: z.number(),
  shares: z.number(),
  ...(Object.fromEntries(SHARE_CHANNELS.map((channel) => [`share_${channel}`, z.number()])) as Record<
    `share_${(typeof SHARE_CHANNELS)[number]}`,
    z.ZodNumber
  >),
  downloads: z.number(),
  zips: z.number(),
}

/** Outbox rows `m` counted by state. */
const MESSAGE_COUNTS = `count(*) filter (where m.status = 'pending')::int as pending,
       count(*) filter (where m.status = 'sent')::int as sent,
       count(*) filter (where m.status = 'failed')::int as failed`

const MESSAGE_COUNTS_ROW = { pending: z.number(), sent: z.number(), failed: z.number() }

/** Keeps the sessions `s` of the event `e`. */
const OF_EVENT = 'join event_set st on st.id = s.set_id and st.event_id = e.id'

export const STATS_QUERIES = {
  /** No row: no such session. */
  session: query(
    'stats.session',
    `select t.*, g.guests, m.*
       from session s
       cross join lateral (select ${TRACKING_COUNTS} from tracking_event t where t.session_id = s.id) t
       cross join lateral (select count(*)::int as guests from session_guest g where g.session_id = s.id) g
       cross join lateral (select ${MESSAGE_COUNTS} from outbox_message m where m.session_id = s.id) m
      where s.id = ?`,
    z.strictObject({ ...TRACKING_COUNTS_ROW, ...MESSAGE_COUNTS_ROW, guests: z.number() }),
  ),
  /** No row: no such event. */
  event: query(
    'stats.event',
    `select t.*, g.guests, m.*, ss.*
       from event e
       cross join lateral (select ${TRACKING_COUNTS} from tracking_event t where t.event_id = e.id) t
       cross join lateral (
         select count(*) filter (where s.status = 'active')::int as active,
                count(*) filter (where s.status = 'completed')::int as completed,
                count(*) filter (where s.status = 'cancelled')::int as cancelled
           from session s ${OF_EVENT}
       ) ss
       cross join lateral (select count(*)::int as guests from session_guest g join session s on s.id = g.session_id ${OF_EVENT}) g
       cross join lateral (select ${MESSAGE_COUNTS} from outbox_message m join session s on s.id = m.session_id ${OF_EVENT}) m
      where e.id = ?`,
    z.strictObject({
      ...TRACKING_COUNTS_ROW,
      ...MESSAGE_COUNTS_ROW,
      guests: z.number(),
      active: z.number(),
      completed: z.number(),
      cancelled: z.number(),
    }),
  ),
  /**
   * Every UTC hour from the first to the last with a tracking row or a registered session, empty
   * hours included (none at all: no rows). Params: event id, event id.
   */
  hourly: query(
    'stats.hourly',
    `with tracked as (
         select date_trunc('hour', t.created_at, 'UTC') as slot, ${TRACKING_COUNTS}
           from tracking_event t where t.event_id = ? group by 1
       ), registered as (
         select date_trunc('hour', s.created_at, 'UTC') as slot, count(*)::int as sessions
           from session s join event_set st on st.id = s.set_id where st.event_id = ? group by 1
       ), span as (
         select min(slot) as first, max(slot) as last from (select slot from tracked union all select slot from registered) active
       )
       select ${epochMillis('h.slot')} as hour, coalesce(t.views, 0) as views, coalesce(t.shares, 0) as shares,
              coalesce(t.downloads, 0) as downloads, coalesce(t.zips, 0) as zips, coalesce(r.sessions, 0) as sessions
         from span cross join generate_series(span.first, span.last, interval '1 hour') as h (slot)
         left join tracked t on t.slot = h.slot
         left join registered r on r.slot = h.slot
        order by h.slot`,
    z.strictObject({
      hour: z.number(),
      views: z.number(),
      shares: z.number(),
      downloads: z.number(),
      zips: z.number(),
      sessions: z.number(),
    }),
  ),
}

export type SessionStatsRow = z.infer<typeof STATS_QUERIES.session.row>
export type EventStatsRow = z.infer<typeof STATS_QUERIES.event.row>
export type HourRow = z.infer<typeof STATS_QUERIES.hourly.row>
