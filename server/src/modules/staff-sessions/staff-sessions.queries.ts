import { z } from 'zod'

import { query, type Query } from '../../db/query.js'
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

const SESSION_ROW = z.strictObject({
  id: z.string(),
  set_id: z.string(),
  label: z.string(),
  status: z.enum(['active', 'completed', 'cancelled']),
  photo_count: z.number(),
  created_at: z.number(),
  completed_at: z.number().nullable(),
  cancelled_at: z.number().nullable(),
  created_us: z.number(),
})
export type SessionRow = z.infer<typeof SESSION_ROW>

/** Where the previous page ended: the last session's creation time (microseconds) and id. */
export type SessionKey = { createdUs: number; id: string }

export type SessionPageFilter = { eventId: string; setId?: string; status?: string; after?: SessionKey; limit: number }

/** One page of an event's sessions, newest first, with only the conditions the filter asks for. */
export function sessionPageQuery({ eventId, setId, status, after, limit }: SessionPageFilter): [Query<SessionRow>, unknown[]] {
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
  return [query('staffSessions.page', sql, SESSION_ROW), [...params, limit]]
}

export const STAFF_SESSION_QUERIES = {
  one: query('staffSessions.one', `select ${SESSION_COLUMNS} from session s where s.id = ?`, SESSION_ROW),
  /** The sessions' photos by copies status, with the failed ones and their reasons. Param: session ids. */
  copies: query(
    'staffSessions.copies',
    `select session_id, image_status as status, count(*)::int as count,
            json_agg(json_build_object('photoId', id, 'position', position, 'reason', image_error) order by position)
              filter (where image_status = 'failed') as failed
       from photo where session_id in (?) group by session_id, image_status`,
    z.strictObject({
      session_id: z.string(),
      status: z.enum(['legacy', 'queued', 'ready', 'failed']),
      count: z.number(),
      failed: z.array(z.strictObject({ photoId: z.string(), position: z.number(), reason: z.string() })).nullable(),
    }),
  ),
}

export type CopiesRow = z.infer<typeof STAFF_SESSION_QUERIES.copies.row>
