import { micros } from '../../db/sql.js'

/**
 * The guest export's read, as SQL: a keyset page over an event's guests in registration order,
 * keyed to the microsecond (a Date would drop them, and a page could then skip or repeat guests).
 * `?` placeholders, run through `em.execute`.
 */

export type GuestRow = {
  first_name: string
  last_name: string
  email: string | null
  phone: string | null
  label: string
  session_id: string
  position: number
  created_us: number
  registered_at: string
}

/** Where the previous page ended: its last guest's session (creation time, id) and position. */
export type GuestKey = { createdUs: number; sessionId: string; position: number }

/**
 * One page of the guests of an event's sessions, oldest session first, each session's guests in
 * order. Cancelled sessions are left out: their guests have no photos and never will, and the
 * organiser exports the people to follow up. Active sessions are in: their galleries are on the way.
 */
export function guestPageQuery(eventId: string, after: GuestKey | undefined, limit: number): [string, unknown[]] {
  const keyset = after ? `and (s.created_at, s.id, g.position) > (timestamptz 'epoch' + ?::float8 * interval '1 microsecond', ?, ?)` : ''
  const sql = `select g.first_name, g.last_name, g.email, g.phone, s.label, s.id as session_id, g.position,
              ${micros('s.created_at')} as created_us,
              to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as registered_at
         from session s
         join event_set st on st.id = s.set_id
         join session_guest g on g.session_id = s.id
        where st.event_id = ? and s.status <> 'cancelled' ${keyset}
        order by s.created_at, s.id, g.position
        limit ?`
  return [sql, [eventId, ...(after ? [after.createdUs, after.sessionId, after.position] : []), limit]]
}
