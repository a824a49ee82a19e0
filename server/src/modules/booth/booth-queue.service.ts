import type { AppContext } from '../../context.js'
import { epochMillis } from '../../db/sql.js'
import { AppError } from '../../errors.js'
import { NO_SUCH_SET } from '../events/events.service.js'

/** Every event with its sets, newest start first: booths work private events too. */
export async function listBoothEvents({ em }: Pick<AppContext, 'em'>) {
  const rows = await em.execute<
    { id: string; slug: string; name: string; start_at: number; is_private: boolean; set_id: string | null; set_slug: string; set_name: string }[]
  >(
    `select e.id, e.slug, e.name, ${epochMillis('e.start_at')} as start_at, e.is_private,
            s.id as set_id, s.slug as set_slug, s.name as set_name
       from event e left join event_set s on s.event_id = e.id
      order by e.start_at desc, e.id, s.created_at, s.slug`,
  )
  const events = new Map<string, { id: string; slug: string; name: string; startAt: number; isPrivate: boolean; sets: { id: string; slug: string; name: string }[] }>()
  for (const row of rows) {
    let event = events.get(row.id)
    if (!event) {
      event = { id: row.id, slug: row.slug, name: row.name, startAt: row.start_at, isPrivate: row.is_private, sets: [] }
      events.set(row.id, event)
    }
    if (row.set_id !== null) event.sets.push({ id: row.set_id, slug: row.set_slug, name: row.set_name })
  }
  return { events: [...events.values()] }
}

/** A set's active sessions, oldest first: whom the booth shoots next. */
export async function listQueue({ em }: Pick<AppContext, 'em'>, { setId }: { setId: string }) {
  const [set] = await em.execute<{ id: string; slug: string; name: string }[]>('select id, slug, name from event_set where id = ?', [setId])
  if (!set) throw new AppError('NOT_FOUND', NO_SUCH_SET)
  const rows = await em.execute<
    { id: string; label: string; created_at: number; first_name: string; last_name: string }[]
  >(
    `select s.id, s.label, ${epochMillis('s.created_at')} as created_at, g.first_name, g.last_name
       from session s join session_guest g on g.session_id = s.id
      where s.set_id = ? and s.status = 'active'
      order by s.created_at, s.id, g.position`,
    [setId],
  )
  const sessions = new Map<string, { id: string; label: string; createdAt: number; guests: { name: string; firstName: string; lastName: string }[] }>()
  for (const row of rows) {
    let session = sessions.get(row.id)
    if (!session) {
      session = { id: row.id, label: row.label, createdAt: row.created_at, guests: [] }
      sessions.set(row.id, session)
    }
    const name = [row.first_name, row.last_name].filter(Boolean).join(' ')
    session.guests.push({ name, firstName: row.first_name, lastName: row.last_name })
  }
  return { set, sessions: [...sessions.values()] }
}
