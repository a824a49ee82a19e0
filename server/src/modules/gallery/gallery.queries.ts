import { z } from 'zod'

import { query } from '../../db/query.js'
import { epochMillis, micros } from '../../db/sql.js'
import { isLive } from '../sessions/index.js'
import { BRANDING_COLUMNS, BRANDING_ROW } from '../events/index.js'

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
const IMAGE_STATUS = z.enum(['legacy', 'queued', 'ready', 'failed'])

const EVENT_VERSION_ROW = {
  is_private: z.boolean(),
  updated_us: z.number(),
  live_count: z.number(),
  last_completed_us: z.number(),
  images_settled: z.number(),
}
const GALLERY_VERSION_ROW = {
  /** Null for a session completed without its time (`completed_at` is nullable, whatever the status). */
  completed_us: z.number().nullable(),
  event_updated_us: z.number(),
  images_settled: z.number(),
  /** Some photo's copies are still to be made. */
  copies_coming: z.boolean(),
}
const LIVE_SESSION_ROW = z.strictObject({
  id: z.string(),
  set_id: z.string(),
  label: z.string(),
  created_at: z.number(),
  created_us: z.number(),
})

export const GALLERY_QUERIES = {
  /** An event with its sets (none: one row with null set columns), and its version. */
  eventWithSets: query(
    'gallery.eventWithSets',
    `select e.id, e.slug, e.name, ${epochMillis('e.start_at')} as start_at, e.is_private, ${BRANDING_COLUMNS}, s.id as set_id, s.slug as set_slug, s.name as set_name,
            ${micros('e.updated_at')} as updated_us, v.live_count, v.last_completed_us, v.images_settled
       from event e ${LIVE_VERSION} left join event_set s on s.event_id = e.id
      where e.slug = ?
      order by s.created_at, s.slug`,
    z.strictObject({
      ...EVENT_VERSION_ROW,
      ...BRANDING_ROW,
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      start_at: z.number(),
      set_id: z.string().nullable(),
      set_slug: z.string().nullable(),
      set_name: z.string().nullable(),
    }),
  ),
  /** Just the event page's version: what a conditional request is answered from. */
  eventVersion: query(
    'gallery.eventVersion',
    `select e.is_private, ${micros('e.updated_at')} as updated_us, v.live_count, v.last_completed_us, v.images_settled
       from event e ${LIVE_VERSION}
      where e.slug = ?`,
    z.strictObject(EVENT_VERSION_ROW),
  ),
  /** The latest listed sessions of every set of an event (a page and one more), in one lateral query. */
  liveSessions: query(
    'gallery.liveSessions',
    `select live.id, live.set_id, live.label, ${epochMillis('live.created_at')} as created_at, ${micros('live.created_at')} as created_us
       from event_set s
       cross join lateral (
         select l.id, l.set_id, l.label, l.created_at from session l
          where l.set_id = s.id and ${LISTED('l')}
          order by l.created_at desc, l.id desc
          limit ${PAGE_AND_ONE}
       ) live
      where s.event_id = ?
      order by live.set_id, live.created_at desc, live.id desc`,
    LIVE_SESSION_ROW,
  ),
  /** One set's next listed sessions after a page's last (its creation time in microseconds, and id), a page and one more. Params: event, set, time, id. */
  moreSessions: query(
    'gallery.moreSessions',
    `select l.id, l.set_id, l.label, ${epochMillis('l.created_at')} as created_at, ${micros('l.created_at')} as created_us
       from session l join event_set s on s.id = l.set_id
      where s.event_id = ? and l.set_id = ? and ${LISTED('l')}
        and (l.created_at, l.id) < (timestamptz 'epoch' + ?::float8 * interval '1 microsecond', ?)
      order by l.created_at desc, l.id desc
      limit ${PAGE_AND_ONE}`,
    LIVE_SESSION_ROW,
  ),
  gallery: query(
    'gallery.gallery',
    `select s.id, s.label, e.id as event_id, e.slug as event_slug, e.name as event_name, ${epochMillis('e.start_at')} as start_at, ${GALLERY_VERSION},
            ${BRANDING_COLUMNS}
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ? and ${isLive('s')}`,
    z.strictObject({
      ...GALLERY_VERSION_ROW,
      ...BRANDING_ROW,
      id: z.string(),
      label: z.string(),
      event_id: z.string(),
      event_slug: z.string(),
      event_name: z.string(),
      start_at: z.number(),
    }),
  ),
  /** Just a live gallery's version. */
  galleryVersion: query(
    'gallery.galleryVersion',
    `select ${GALLERY_VERSION}
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ? and ${isLive('s')}`,
    z.strictObject(GALLERY_VERSION_ROW),
  ),
  /** A session that is not live, with its event: the gallery link opened before (or without) photos. */
  notLive: query(
    'gallery.notLive',
    `select s.status, e.id as event_id, e.name as event_name, ${BRANDING_COLUMNS}
       from session s
       join event_set st on st.id = s.set_id
       join event e on e.id = st.event_id
      where s.id = ?`,
    z.strictObject({ status: z.string(), event_id: z.string(), event_name: z.string(), ...BRANDING_ROW }),
  ),
  photos: query(
    'gallery.photos',
    `select id, session_id, storage_key, width, height, size_bytes, image_status, full_size, copies, preview
       from photo where session_id in (?) order by session_id, position`,
    z.strictObject({
      id: z.string(),
      session_id: z.string(),
      storage_key: z.string(),
      width: z.number(),
      height: z.number(),
      size_bytes: z.number(),
      image_status: IMAGE_STATUS,
      full_size: z.number().nullable(),
      copies: z.array(z.strictObject({ width: z.number(), height: z.number() })).nullable(),
      preview: z.boolean(),
    }),
  ),
}

export type EventVersionRow = z.infer<typeof GALLERY_QUERIES.eventVersion.row>
export type EventWithSetsRow = z.infer<typeof GALLERY_QUERIES.eventWithSets.row>
export type GalleryVersionRow = z.infer<typeof GALLERY_QUERIES.galleryVersion.row>
export type LiveSessionRow = z.infer<typeof LIVE_SESSION_ROW>
export type GalleryRow = z.infer<typeof GALLERY_QUERIES.gallery.row>
export type PhotoRow = z.infer<typeof GALLERY_QUERIES.photos.row>

/** A live gallery's photos as files: what sending them needs, and where they are counted. */
const PHOTO_FILES = `select p.id, p.session_id, p.storage_key, p.position, p.size_bytes, p.etag, p.width, p.height, p.image_status, p.full_size, p.full_etag,
            s.label, st.event_id, ${epochMillis('s.completed_at')} as completed_at
       from session s join event_set st on st.id = s.set_id join photo p on p.session_id = s.id
      where s.id = ? and ${isLive('s')}`

const PHOTO_FILE_ROW = z.strictObject({
  id: z.string(),
  session_id: z.string(),
  storage_key: z.string(),
  position: z.number(),
  size_bytes: z.number(),
  etag: z.string().nullable(),
  width: z.number(),
  height: z.number(),
  image_status: IMAGE_STATUS,
  full_size: z.number().nullable(),
  full_etag: z.string().nullable(),
  label: z.string(),
  event_id: z.string(),
  completed_at: z.number().nullable(),
})

export const PHOTO_FILE_QUERIES = {
  one: query('gallery.photoFile', `${PHOTO_FILES} and p.id = ?`, PHOTO_FILE_ROW),
  all: query('gallery.photoFiles', `${PHOTO_FILES} order by p.position`, PHOTO_FILE_ROW),
}

export type PhotoFileRow = z.infer<typeof PHOTO_FILE_ROW>
