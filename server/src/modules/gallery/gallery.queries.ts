import { epochMillis, micros } from '../../db/sql.js'
import type { DisplayCopy, ImageStatus } from '../../db/entities/photo.entity.js'
import { isLive } from '../sessions/index.js'
import { BRANDING_COLUMNS, type BrandingRow } from '../events/index.js'

/** Sessions per set on a page of the event page; the next ones are a page of their own (a set's `nextCursor`). */
export const SESSIONS_PER_SET = 12

/** A page's sessions and one more: whether it comes tells if there is a next page. */
const PAGE_AND_ONE = SESSIONS_PER_SET + 1

/** A set's live sessions as the event page lists them: those whose guests all agreed to be listed, newest first. */
const LISTED = (alias: string) => `${isLive(alias)} and ${alias}.listed`

/**
 * What an event page's ETag is made of besides the event's own `updated_at`: how many of its
 * sessions are live and when the last went live (a completion or a deletion changes one of them).
 */
const LIVE_VERSION = `cross join lateral (
         select count(*)::int as live_count, coalesce(${micros('max(l.completed_at)')}, 0) as last_completed_us,
                coalesce(sum(l.images_settled), 0)::int as images_settled
           from event_set x join session l on l.set_id = x.id
          where x.event_id = e.id and ${isLive('l')}
       ) v`

/**
 * A live gallery's ETag: when it went live, when staff last changed its event, how many of its
 * photos' copies are made, and whether any is still awaited (its caching depends on it:
 * gallery-versions.ts; photos from before copies existed, or whose copies failed, are not).
 */
const GALLERY_VERSION = `${micros('s.completed_at')} as completed_us, ${micros('e.updated_at')} as event_updated_us, s.images_settled,
            exists (select 1 from photo q where q.session_id = s.id and q.image_status = 'queued') as copies_coming`

/**
 * The gallery's reads, as SQL: the event page and a gallery are read on every guest's phone, and
 * hydrating entities for 2,400 photos costs what the benchmark shows (bench/README.md). `?`
 * placeholders, run through `em.execute`; an array value is a list (`in (?)`). Exported so that the
 * benchmark's hand-written baseline runs exactly these.
 */
export const GALLERY_QUERIES = {
  /** An event with its sets (none: one row with null set columns), and its version. */
  eventWithSets: `select e.id, e.slug, e.name, ${epochMillis('e.start_at')} as start_at, e.is_private, ${BRANDING_COLUMNS}, s.id as set_id, s.slug as set_slug, s.name as set_name,
            ${micros('e.updated_at')} as updated_us, v.live_count, v.last_completed_us, v.images_settled
       from event e ${LIVE_VERSION} left join event_set s on s.event_id = e.id
      where e.slug = ?
      order by s.created_at, s.slug`,
  /** Just the event page's version: what a conditional request is answered from. */
  eventVersion: `select e.is_private, ${micros('e.updated_at')} as updated_us, v.live_count, v.last_completed_us, v.images_settled
       from event e ${LIVE_VERSION}
      where e.slug = ?`,
  /** The latest listed sessions of every set of an event (a page and one more), in one lateral query. */
  liveSessions: `select live.id, live.set_id, live.label, ${epochMillis('live.created_at')} as created_at, ${micros('live.created_at')} as created_us
       from event_set s
       cross join lateral (
         select l.id, l.set_id, l.label, l.created_at from session l
          where l.set_id = s.id and ${LISTED('l')}
          order by l.created_at desc, l.id desc
          limit ${PAGE_AND_ONE}
       ) live
      where s.event_id = ?
      order by live.set_id, live.created_at desc, live.id desc`,
  /** One set's next listed sessions after a page's last (its creation time in microseconds, and id), a page and one more. Params: event, set, time, id. */
  moreSessions: `select l.id, l.set_id, l.label, ${epochMillis('l.created_at')} as created_at, ${micros('l.created_at')} as created_us
       from session l join event_set s on s.id = l.set_id
      where s.event_id = ? and l.set_id = ? and ${LISTED('l')}
        and (l.created_at, l.id) < (timestamptz 'epoch' + ?::float8 * interval '1 microsecond', ?)
      order by l.created_at desc, l.id desc
      limit ${PAGE_AND_ONE}`,
  gallery: `select s.id, s.label, e.id as event_id, e.slug as event_slug, e.name as event_name, ${epochMillis('e.start_at')} as start_at, ${GALLERY_VERSION},
            ${BRANDING_COLUMNS}
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ? and ${isLive('s')}`,
  /** Just a live gallery's version. */
  galleryVersion: `select ${GALLERY_VERSION}
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ? and ${isLive('s')}`,
  /** A session that is not live, with its event: the gallery link opened before (or without) photos. */
  notLive: `select s.status, e.id as event_id, e.name as event_name, ${BRANDING_COLUMNS}
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ?`,
  photos: `select id, session_id, storage_key, width, height, size_bytes, image_status, full_size, copies, preview
       from photo where session_id in (?) order by session_id, position`,
}

export type EventVersionRow = {
  is_private: boolean
  updated_us: number
  live_count: number
  last_completed_us: number
  images_settled: number
}
export type EventWithSetsRow = EventVersionRow &
  BrandingRow & {
    id: string
    slug: string
    name: string
    start_at: number
    set_id: string | null
    set_slug: string
    set_name: string
  }
export type GalleryVersionRow = {
  completed_us: number
  event_updated_us: number
  images_settled: number
  /** Some photo's copies are still to be made. */
  copies_coming: boolean
}
export type LiveSessionRow = { id: string; set_id: string; label: string; created_at: number; created_us: number }
export type GalleryRow = GalleryVersionRow &
  BrandingRow & {
    id: string
    label: string
    event_id: string
    event_slug: string
    event_name: string
    start_at: number
  }
export type PhotoRow = {
  id: string
  session_id: string
  storage_key: string
  width: number
  height: number
  size_bytes: number
  image_status: ImageStatus
  full_size: number | null
  copies: DisplayCopy[] | null
  preview: boolean
}

/** A live gallery's photos as files: what sending them needs, and where they are counted. */
const PHOTO_FILES = `select p.id, p.session_id, p.storage_key, p.position, p.size_bytes, p.etag, p.width, p.height, p.image_status, p.full_size, p.full_etag,
            s.label, st.event_id, ${epochMillis('s.completed_at')} as completed_at
       from session s join event_set st on st.id = s.set_id join photo p on p.session_id = s.id
      where s.id = ? and ${isLive('s')}`

export const PHOTO_FILE_QUERIES = {
  one: `${PHOTO_FILES} and p.id = ?`,
  all: `${PHOTO_FILES} order by p.position`,
}

export type PhotoFileRow = {
  id: string
  session_id: string
  storage_key: string
  position: number
  size_bytes: number
  etag: string | null
  width: number
  height: number
  image_status: ImageStatus
  full_size: number | null
  full_etag: string | null
  label: string
  event_id: string
  completed_at: number
}
