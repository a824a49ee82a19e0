import { z } from 'zod'

import { query, statement } from '../../db/query.js'

/**
 * The purge's statements. `?` placeholders, run through `em.execute`.
 */
export const RETENTION_QUERIES = {
  /**
   * Sessions whose time is up, locked, skipping those another instance holds: the sessions of an
   * event past its retention (its own days, or the instance's) after its start, or after their own
   * registration when that came later (an event entered after the fact keeps its guests as long), and
   * cancelled sessions a day after their cancellation. Params: now, the default days, now, how many.
   */
  due: query(
    'retention.due',
    `select s.id, st.event_id
      from session s
      join event_set st on st.id = s.set_id
      join event e on e.id = st.event_id
     where (s.status = 'cancelled' and s.cancelled_at < ?::timestamptz - interval '1 day')
        or greatest(e.start_at, s.created_at) + make_interval(days => coalesce(e.retention_days, ?)) < ?::timestamptz
     order by s.id
     limit ?
       for update of s skip locked`,
    z.strictObject({ id: z.string(), event_id: z.string() }),
  ),
  /** Views and shares stay counted for their event, no longer tied to a session that is gone. */
  detachTracking: statement('retention.detachTracking', `update tracking_event set session_id = null where session_id in (?)`),
  /** The event's anonymous counts of what was purged. Params: sessions, guests, photos, event id. */
  countPurged: statement(
    'retention.countPurged',
    `update event set purged_sessions = purged_sessions + ?, purged_guests = purged_guests + ?, purged_photos = purged_photos + ?
     where id = ?`,
  ),
} as const

export type DueRow = z.infer<typeof RETENTION_QUERIES.due.row>
