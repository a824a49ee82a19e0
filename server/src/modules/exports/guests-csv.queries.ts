import { z } from 'zod'

import { query, type Query } from '../../db/query.js'
import { micros } from '../../db/sql.js'

/**
 * The guest export's read, as SQL: a keyset page over an event's guests in registration order,
 * keyed to the microsecond (a Date would drop them, and a page could then skip or repeat guests).
 * `?` placeholders, run through `em.execute`.
 */

const GUEST_ROW = z.strictObject({
  first_name: z.string(),
  last_name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  label: z.string(),
  session_id: z.string(),
  position: z.number(),
  created_us: z.number(),
  registered_at: z.string(),
  marketing_opt_in: z.boolean(),
  listing_choice: z.boolean().nullable(),
  privacy_notice_version: z.string().nullable(),
  /** The state of the guest's latest gallery-link message by email and by SMS, when one was queued. */
  email_state: z.string().nullable(),
  sms_state: z.string().nullable(),
})
export type GuestRow = z.infer<typeof GUEST_ROW>

/** Where the previous page ended: its last guest's session (creation time, id) and position. */
export type GuestKey = { createdUs: number; sessionId: string; position: number }

/**
 * One page of the guests of an event's sessions, oldest session first, each session's guests in
 * order. Cancelled sessions are left out: their guests have no photos and never will, and the
 * organiser exports the people to follow up. Active sessions are in: their galleries are on the way.
 */
const latestState = (channel: 'email' | 'sms') =>
  `(select m.status from outbox_message m where m.session_id = s.id and m.session_guest_id = g.id and m.channel = '${channel}' order by m.created_at desc limit 1)`

export function guestPageQuery(eventId: string, after: GuestKey | undefined, limit: number): [Query<GuestRow>, unknown[]] {
  const keyset = after ? `and (s.created_at, s.id, g.position) > (timestamptz 'epoch' + ?::float8 * interval '1 microsecond', ?, ?)` : ''
  const sql = `select g.first_name, g.last_name, g.email, g.phone, s.label, s.id as session_id, g.position,
              ${micros('s.created_at')} as created_us,
              to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as registered_at,
              g.marketing_opt_in, g.listing_choice, g.privacy_notice_version,
              ${latestState('email')} as email_state, ${latestState('sms')} as sms_state
         from session s
         join event_set st on st.id = s.set_id
         join session_guest g on g.session_id = s.id
        where st.event_id = ? and s.status <> 'cancelled' ${keyset}
        order by s.created_at, s.id, g.position
        limit ?`
  return [query('guestsCsv.page', sql, GUEST_ROW), [eventId, ...(after ? [after.createdUs, after.sessionId, after.position] : []), limit]]
}
