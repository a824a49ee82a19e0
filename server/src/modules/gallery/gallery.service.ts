import { Id } from '@photobooth/sdk/schemas'
import { z } from 'zod'

import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { decodePageCursor, encodePageCursor } from '../../db/page-cursor.js'
import { AppError } from '../../errors.js'
import { brandingOfRow, NO_SUCH_EVENT } from '../events/index.js'
import { GALLERY_QUERIES, SESSIONS_PER_SET, type LiveSessionRow, type PhotoRow } from './gallery.queries.js'
import { cacheControlOf, eventPageVersion, galleryVersion, versionTag } from './gallery-versions.js'
import { displayCopyKey, fullSizeKey, PREVIEW, previewKey } from '../photos/index.js'
import type { ImageStatus } from '../../db/entities/photo.entity.js'
import { photoUrl } from './photo-url.js'
import { run } from '../../db/query.js'

type Photo = {
  id: string
  url: string
  width: number
  height: number
  copies?: { url: string; width: number; height: number; type: 'image/webp' }[]
}

/** The event page with its ETag, or "no such event" (a private event included); with `cursor`, one set's next page. */
export async function readEventPage(context: Pick<AppContext, 'em' | 'config'>, { slug, cursor }: { slug: string; cursor?: string }) {
  const read = await readPublicEventPage(context, slug, cursor)
  if (!read) throw new AppError('no_such_event', NO_SUCH_EVENT)
  return { body: read.page, etag: jsonTag(context.config, read.version) }
}

/** Where a set's page ended: the set, and its last session's creation time (microseconds) and id. */
type PageEnd = { setId: string; createdUs: number; id: string }

const PageEndKey = z.tuple([Id, z.int().nonnegative(), Id])

/** A set's `nextCursor`, opaque to clients: `[set id, created_at in microseconds, id]` of its page's last session. */
const encodeCursor = (setId: string, last: LiveSessionRow) => encodePageCursor([setId, last.created_us, last.id])

function decodeCursor(cursor: string): PageEnd {
  const key = decodePageCursor(cursor, PageEndKey)
  if (!key) throw new AppError('invalid_cursor', INVALID_PAGE_CURSOR)
  const [setId, createdUs, id] = key
  return { setId, createdUs, id }
}

export const INVALID_PAGE_CURSOR = 'Invalid cursor: pass the nextCursor of a set of this event page'

/**
 * The one reader of an event page, for the JSON route and the guest's page, in three round trips
 * whatever its size: the event with its sets (and its version), the latest live sessions of every
 * set (one lateral query; with `cursor`, the next ones of its set only), then all their photos.
 * Each set lists SESSIONS_PER_SET at most, and where it holds more, a `nextCursor` for the next
 * page. Absent for an unknown or private event; a cursor that is not one is `invalid_cursor`.
 */
export async function readPublicEventPage({ em, config }: Pick<AppContext, 'em' | 'config'>, slug: string, cursor?: string) {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  const sets = await run(em, GALLERY_QUERIES.eventWithSets, [slug])
  const event = sets[0]
  if (!event || event.is_private) return undefined

  const sessions = after
    ? await run(em, GALLERY_QUERIES.moreSessions, [event.id, after.setId, after.createdUs, after.id])
    : await run(em, GALLERY_QUERIES.liveSessions, [event.id])
  const { photos, previews, statuses } = await readPhotos(
    em,
    sessions.map((session) => session.id),
    config.cdnUrl,
  )
  const sessionsBySet = groupBy(sessions, (session) => session.set_id)
  const branding = brandingOfRow(event.id, event, config.publicUrl)
  const page = {
    id: event.id,
    slug: event.slug,
    name: event.name,
    startAt: event.start_at,
    ...(branding && { branding }),
    sets: sets
      .filter((row) => row.set_id !== null && (!after || row.set_id === after.setId))
      .map((row) => {
        const listed = sessionsBySet.get(row.set_id!) ?? []
        const shown = listed.slice(0, SESSIONS_PER_SET)
        return {
          id: row.set_id!,
          slug: row.set_slug!,
          name: row.set_name!,
          sessions: shown.map((session) => {
            const preview = previews.get(session.id)
            return {
              id: session.id,
              label: session.label,
              createdAt: session.created_at,
              photos: photos.get(session.id) ?? [],
              ...(preview && { preview }),
            }
          }),
          ...(listed.length > SESSIONS_PER_SET && { nextCursor: encodeCursor(row.set_id!, shown.at(-1)!) }),
        }
      }),
  }
  const version = eventPageVersion(event)
  return { page, version: cursor === undefined ? version : [...version, cursor], imageStatuses: statuses }
}

export const NO_SUCH_GALLERY = 'no such gallery'

/** A live session's gallery with its ETag: completed and holding at least one photo, else "no such gallery". */
export async function readGallery(context: Pick<AppContext, 'em' | 'config'>, { sessionId }: { sessionId: string }) {
  const live = await readLiveGallery(context, sessionId)
  if (!live) throw new AppError('no_such_gallery', NO_SUCH_GALLERY)
  return { body: live.gallery, etag: jsonTag(context.config, live.version), cacheControl: cacheControlOf(live.version) }
}

/** The JSON answers' validator: their photo URLs depend on `CDN_URL`. */
export const jsonTag = (config: AppContext['config'], version: readonly (string | number)[]) =>
  versionTag('json', config.cdnUrl, ...version)

/**
 * The one reader of a gallery, for the JSON route and the guest's page: the gallery as the contract
 * shapes it, and the recorded size of its photos (what "Download all" will weigh); absent unless live.
 */
export async function readLiveGallery({ em, config }: Pick<AppContext, 'em' | 'config'>, sessionId: string) {
  const [session] = await run(em, GALLERY_QUERIES.gallery, [sessionId])
  if (!session) return undefined
  const { photos, bytes, previews, statuses } = await readPhotos(em, [session.id], config.cdnUrl)
  const preview = previews.get(session.id)
  const branding = brandingOfRow(session.event_id, session, config.publicUrl)
  return {
    gallery: {
      id: session.id,
      label: session.label,
      event: {
        id: session.event_id,
        slug: session.event_slug,
        name: session.event_name,
        startAt: session.start_at,
        ...(branding && { branding }),
      },
      photos: photos.get(session.id) ?? [],
      ...(preview && { preview }),
    },
    photoBytes: bytes.get(session.id) ?? 0,
    version: galleryVersion(session),
    /** Each photo's copies status: the page awaits the queued ones. */
    imageStatuses: statuses,
  }
}

export type Gallery = NonNullable<Awaited<ReturnType<typeof readLiveGallery>>>['gallery']
export type EventPage = NonNullable<Awaited<ReturnType<typeof readPublicEventPage>>>['page']

/**
 * Photos of the given sessions in gallery order, the size of what "Download all" holds, the link
 * previews, grouped by session, and each photo's copies status. A photo's URL is its full-size copy's (made from the upload
 * without its metadata), except for photos recorded before copies existed (`legacy`).
 */
async function readPhotos(em: AppContext['em'], sessionIds: string[], cdnUrl: string) {
  const photos = new Map<string, Photo[]>()
  const bytes = new Map<string, number>()
  const previews = new Map<string, { url: string; width: 1200; height: 630; type: 'image/jpeg' }>()
  const statuses = new Map<string, ImageStatus>()
  if (sessionIds.length === 0) return { photos, bytes, previews, statuses }
  const rows = await run(em, GALLERY_QUERIES.photos, [sessionIds])
  for (const [sessionId, group] of groupBy(rows, (row) => row.session_id)) {
    photos.set(
      sessionId,
      group.map((row) => publicPhoto(cdnUrl, row)),
    )
    bytes.set(
      sessionId,
      group.reduce((sum, row) => sum + (row.full_size ?? row.size_bytes), 0),
    )
    if (group[0]?.preview) previews.set(sessionId, { url: photoUrl(cdnUrl, previewKey(sessionId)), ...PREVIEW_SIZE, type: 'image/jpeg' })
    for (const row of group) statuses.set(row.id, row.image_status)
  }
  return { photos, bytes, previews, statuses }
}

const PREVIEW_SIZE = { width: PREVIEW.width, height: PREVIEW.height } as const

/**
 * A photo as the gallery routes answer it. The copies' keys are made of ids (URL-safe by
 * construction): their URLs are joined without photoUrl's check, 2,400 photos and 9,600 URLs an
 * event page (bench/README.md, `gallery`).
 */
function publicPhoto(cdnUrl: string, row: PhotoRow): Photo {
  const photo: Photo = {
    id: row.id,
    url: row.image_status === 'legacy' ? photoUrl(cdnUrl, row.storage_key) : `${cdnUrl}/${fullSizeKey(row.session_id, row.id)}`,
    width: row.width,
    height: row.height,
  }
  if (row.copies) {
    photo.copies = row.copies.map((copy) => ({
      url: `${cdnUrl}/${displayCopyKey(row.session_id, row.id, copy.width)}`,
      width: copy.width,
      height: copy.height,
      type: 'image/webp',
    }))
  }
  return photo
}
