import { epochMillis } from '../../db/sql.js'
import { isLive } from '../sessions/session-state.js'

/** Sessions per set on the event page: the spec's bound, with no paging. */
export const SESSIONS_PER_SET = 12

/**
 * The gallery's reads, as SQL: the event page and a gallery are read on every guest's phone, and
 * hydrating entities for 2,400 photos costs what the benchmark shows (bench/README.md). `?`
 * placeholders, run through `em.execute`; an array value is a list (`in (?)`). Exported so that the
 * benchmark's hand-written baseline runs exactly these.
 */
export const GALLERY_QUERIES = {
  /** An event with its sets (none: one row with null set columns). */
  eventWithSets: `select e.id, e.slug, e.name, ${epochMillis('e.start_at')} as start_at, e.is_private, s.id as set_id, s.slug as set_slug, s.name as set_name
       from event e left join event_set s on s.event_id = e.id
      where e.slug = ?
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
      where s.event_id = ?
      order by live.set_id, live.created_at desc, live.id desc`,
  gallery: `select s.id, s.label, e.id as event_id, e.slug as event_slug, e.name as event_name, ${epochMillis('e.start_at')} as start_at
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ? and ${isLive('s')}`,
  /** An active session's event: the gallery link opened before the photos are in. */
  pending: `select e.name as event_name
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ? and s.status = 'active'`,
  photos: 'select id, session_id, storage_key, width, height, size_bytes from photo where session_id in (?) order by session_id, position',
}

export type EventWithSetsRow = { id: string; slug: string; name: string; start_at: number; is_private: boolean; set_id: string | null; set_slug: string; set_name: string }
export type LiveSessionRow = { id: string; set_id: string; label: string; created_at: number }
export type GalleryRow = { id: string; label: string; event_id: string; event_slug: string; event_name: string; start_at: number }
export type PhotoRow = { id: string; session_id: string; storage_key: string; width: number; height: number; size_bytes: number }

/** A live gallery's photos as files: what sending them needs, and where they are counted. */
const PHOTO_FILES = `select p.storage_key, p.position, p.size_bytes, p.etag, s.label, st.event_id
       from session s join event_set st on st.id = s.set_id join photo p on p.session_id = s.id
      where s.id = ? and ${isLive('s')}`

export const PHOTO_FILE_QUERIES = {
  one: `${PHOTO_FILES} and p.id = ?`,
  all: `${PHOTO_FILES} order by p.position`,
}

export type PhotoFileRow = { storage_key: string; position: number; size_bytes: number; etag: string | null; label: string; event_id: string }
