import type { AppContext } from '../../context.js'
import type { PoolSql } from '../../db/pool-sql.js'
import { epochMillis } from '../../db/sql.js'
import { AppError } from '../../errors.js'
import { isLive } from '../sessions/session-state.js'
import { photoUrl } from './photo-url.js'

/** Sessions per set on the event page: the spec's bound, with no paging. */
export const SESSIONS_PER_SET = 12

/**
 * The statements of the public reads, `$1`-style. Exported so that the benchmark's hand-written
 * baseline runs exactly these.
 */
export const GALLERY_QUERIES = {
  eventWithSets: `select e.id, e.slug, e.name, ${epochMillis('e.start_at')} as start_at, e.is_private, s.id as set_id, s.slug as set_slug, s.name as set_name
       from event e left join event_set s on s.event_id = e.id
      where e.slug = $1
      order by s.created_at, s.slug`,
  /** The latest live sessions of every set of an event, in one lateral query. */
  liveSessions: `select live.id, live.set_id, live.label, ${epochMillis('live.created_at')} as created_at
       from event_set s
       cross join lateral (
         select l.id, l.set_id, l.label, l.created_at from session l
          where l.set_id = s.id and ${isLive('l')}
          order by l.created_at desc, l.id desc
          limit ${SESSIONS_PER_SET}
       ) live
      where s.event_id = $1
      order by live.set_id, live.created_at desc, live.id desc`,
  gallery: `select s.id, s.label, e.id as event_id, e.slug as event_slug, e.name as event_name, ${epochMillis('e.start_at')} as start_at
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = $1 and ${isLive('s')}`,
  photos: 'select id, session_id, storage_key, width, height from photo where session_id = any($1::text[]) order by session_id, position',
}

type PhotoRow = { id: string; session_id: string; storage_key: string; width: number; height: number }
type Photo = { id: string; url: string; width: number; height: number }

/**
 * The event page in three round trips whatever its size: the event with its sets, the latest
 * live sessions of every set (one lateral query), then all their photos.
 */
export async function readEventPage({ db, config }: Pick<AppContext, 'db' | 'config'>, { slug }: { slug: string }) {
  const sets = await db.rows<
    { id: string; slug: string; name: string; start_at: number; is_private: boolean; set_id: string | null; set_slug: string; set_name: string }
  >(
    GALLERY_QUERIES.eventWithSets,
    [slug],
  )
  const event = sets[0]
  if (!event || event.is_private) throw new AppError('NOT_FOUND', 'no such event')

  const sessions = await db.rows<{ id: string; set_id: string; label: string; created_at: number }>(
    GALLERY_QUERIES.liveSessions,
    [event.id],
  )
  const photos = await readPhotos(db, sessions.map((session) => session.id), config.cdnUrl)

  const sessionsBySet = new Map<string, { id: string; label: string; createdAt: number; photos: Photo[] }[]>()
  for (const session of sessions) {
    const list = sessionsBySet.get(session.set_id) ?? []
    list.push({ id: session.id, label: session.label, createdAt: session.created_at, photos: photos.get(session.id) ?? [] })
    sessionsBySet.set(session.set_id, list)
  }
  return {
    id: event.id,
    slug: event.slug,
    name: event.name,
    startAt: event.start_at,
    sets: sets
      .filter((row) => row.set_id !== null)
      .map((row) => ({ id: row.set_id!, slug: row.set_slug, name: row.set_name, sessions: sessionsBySet.get(row.set_id!) ?? [] })),
  }
}

/** A live session's gallery: completed and holding at least one photo, else "no such gallery". */
export async function readGallery({ db, config }: Pick<AppContext, 'db' | 'config'>, { sessionId }: { sessionId: string }) {
  const [session] = await db.rows<
    { id: string; label: string; event_id: string; event_slug: string; event_name: string; start_at: number }
  >(
    GALLERY_QUERIES.gallery,
    [sessionId],
  )
  if (!session) throw new AppError('NOT_FOUND', 'no such gallery')
  const photos = await readPhotos(db, [session.id], config.cdnUrl)
  return {
    id: session.id,
    label: session.label,
    event: { id: session.event_id, slug: session.event_slug, name: session.event_name, startAt: session.start_at },
    photos: photos.get(session.id) ?? [],
  }
}

/** Photos of the given sessions in gallery order, grouped by session. */
async function readPhotos(db: PoolSql, sessionIds: string[], cdnUrl: string): Promise<Map<string, Photo[]>> {
  const bySession = new Map<string, Photo[]>()
  if (sessionIds.length === 0) return bySession
  const rows = await db.rows<PhotoRow>(
    GALLERY_QUERIES.photos,
    [sessionIds],
  )
  for (const row of rows) {
    const list = bySession.get(row.session_id) ?? []
    list.push({ id: row.id, url: photoUrl(cdnUrl, row.storage_key), width: row.width, height: row.height })
    bySession.set(row.session_id, list)
  }
  return bySession
}
