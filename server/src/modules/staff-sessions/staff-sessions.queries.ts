import { epochMillis, micros } from '../../db/sql.js'

/**
 * The staff's session reads, as SQL: paging newest first needs a session's exact place, and the
 * entity manager reads `created_at` into a Date, which drops its microseconds (a `now()` default
 * has them), so a cursor made from it could skip or repeat sessions at a page's edge. `?`
 * placeholders, run through `em.execute`.
 */

const SESSION_COLUMNS = `s.id, s.set_id, s.label, s.status, s.photo_count,
       ${epochMillis('s.created_at')} as created_at, ${epochMillis('s.completed_at')} as completed_at,
       ${epochMillis('s.cancelled_at')} as cancelled_at, ${micros('s.created_at')} as created_us`

export type SessionRow = {
  id: string
  set_id: string
  label: string
  status: 'active' | 'completed' | 'cancelled'
  photo_count: number
  created_at: number
  completed_at: number | null
  cancelled_at: number | null
  created_us: number
}

/** Where the previous page ended: the last session's creation time (microseconds) and id. */
export type SessionKey = { createdUs: number; id: string }

export type SessionPageFilter = { eventId: string; setId?: string; status?: string; after?: SessionKey; limit: number }

/** One page of an event's sessions, newest first, with only the conditions the filter asks for. */
export function sessionPageQuery({ eventId, setId, status, after, limit }: SessionPageFilter): [string, unknown[]] {
  const conditions = ['st.event_id = ?']
  const params: unknown[] = [eventId]
  if (setId !== undefined) {
    conditions.push('s.set_id = ?')
    params.push(setId)
  }
  if (status !== undefined) {
    conditions.push('s.status = ?')
    params.push(status)
  }
  if (after !== undefined) {
    conditions.push(`(s.created_at, s.id) < (timestamptz 'epoch' + ?::float8 * interval '1 microsecond', ?)`)
    params.push(after.createdUs, after.id)
  }
  const sql = `select ${SESSION_COLUMNS}
       from session s join event_set st on st.id = s.set_id
      where ${conditions.join(' and ')}
      order by s.created_at desc, s.id desc
      limit ?`
  return [sql, [...params, limit]]
}

export const STAFF_SESSION_QUERIES = {
  one: `select ${SESSION_COLUMNS} from session s where s.id = ?`,
  /** The sessions' photos by copies status, with the failed ones and their reasons. Param: session ids. */
  copies: `select session_id, image_status as status, count(*)::int as count,
            json_agg(json_build_object('photoId', id, 'position', position, 'reason', image_error) order by position)
              filter (where image_status = 'failed') as failed
       from photo where session_id in (?) group by session_id, image_status`,
}

export type CopiesRow = {
  session_id: string
  status: 'legacy' | 'queued' | 'ready' | 'failed'
  count: number
  failed: { photoId: string; position: number; reason: string }[] | null
}
