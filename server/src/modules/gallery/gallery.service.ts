import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { AppError } from '../../errors.js'
import { brandingOfRow } from '../events/branding.js'
import { NO_SUCH_EVENT } from '../events/events.service.js'
import { GALLERY_QUERIES, type EventWithSetsRow, type GalleryRow, type LiveSessionRow, type PhotoRow } from './gallery.queries.js'
import { eventPageVersion, galleryVersion, versionTag } from './gallery-versions.js'
import { PREVIEW } from '../photos/photo-copies.js'
import { displayCopyKey, fullSizeKey, previewKey } from '../photos/photo-copies.service.js'
import { photoUrl } from './photo-url.js'

type Photo = {
  id: string
  url: string
  width: number
  height: number
  copies?: { url: string; width: number; height: number; type: 'image/webp' }[]
}

/** The event page with its ETag, or "no such event" (a private event included). */
export async function readEventPage(context: Pick<AppContext, 'em' | 'config'>, { slug }: { slug: string }) {
  const read = await readPublicEventPage(context, slug)
  if (!read) throw new AppError('no_such_event', NO_SUCH_EVENT)
  return { body: read.page, etag: jsonTag(context.config, read.version) }
}

/**
 * The one reader of an event page, for the JSON route and the guest's page, in three round trips
 * whatever its size: the event with its sets (and its version), the latest live sessions of every
 * set (one lateral query), then all their photos. Absent for an unknown or private event.
 */
export async function readPublicEventPage({ em, config }: Pick<AppContext, 'em' | 'config'>, slug: string) {
  const sets = await em.execute<EventWithSetsRow[]>(GALLERY_QUERIES.eventWithSets, [slug])
  const event = sets[0]
  if (!event || event.is_private) return undefined

  const sessions = await em.execute<LiveSessionRow[]>(GALLERY_QUERIES.liveSessions, [event.id])
  const { photos, previews } = await readPhotos(
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
      .filter((row) => row.set_id !== null)
      .map((row) => ({
        id: row.set_id!,
        slug: row.set_slug,
        name: row.set_name,
        sessions: (sessionsBySet.get(row.set_id!) ?? []).map((session) => {
          const preview = previews.get(session.id)
          return {
            id: session.id,
            label: session.label,
            createdAt: session.created_at,
            photos: photos.get(session.id) ?? [],
            ...(preview && { preview }),
          }
        }),
      })),
  }
  return { page, version: eventPageVersion(event) }
}

export const NO_SUCH_GALLERY = 'no such gallery'

/** A live session's gallery with its ETag: completed and holding at least one photo, else "no such gallery". */
export async function readGallery(context: Pick<AppContext, 'em' | 'config'>, { sessionId }: { sessionId: string }) {
  const live = await readLiveGallery(context, sessionId)
  if (!live) throw new AppError('no_such_gallery', NO_SUCH_GALLERY)
  return { body: live.gallery, etag: jsonTag(context.config, live.version) }
}

/** The JSON answers' validator: their photo URLs depend on `CDN_URL`. */
export const jsonTag = (config: AppContext['config'], version: readonly (string | number)[]) =>
  versionTag('json', config.cdnUrl, ...version)

/**
 * The one reader of a gallery, for the JSON route and the guest's page: the gallery as the contract
 * shapes it, and the recorded size of its photos (what "Download all" will weigh); absent unless live.
 */
export async function readLiveGallery({ em, config }: Pick<AppContext, 'em' | 'config'>, sessionId: string) {
  const [session] = await em.execute<GalleryRow[]>(GALLERY_QUERIES.gallery, [sessionId])
  if (!session) return undefined
  const { photos, bytes, previews } = await readPhotos(em, [session.id], config.cdnUrl)
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
    /** When it went live, and whether its photos' copies are all made: the page waits for them a while. */
    completedAt: session.completed_at,
    imagesReady: session.images_ready,
  }
}

export type Gallery = NonNullable<Awaited<ReturnType<typeof readLiveGallery>>>['gallery']
export type EventPage = NonNullable<Awaited<ReturnType<typeof readPublicEventPage>>>['page']

/**
 * Photos of the given sessions in gallery order, the size of what "Download all" holds, and the
 * link previews, grouped by session. A photo's URL is its full-size copy's (made from the upload
 * without its metadata), except for photos recorded before copies existed (`legacy`).
 */
async function readPhotos(em: AppContext['em'], sessionIds: string[], cdnUrl: string) {
  const photos = new Map<string, Photo[]>()
  const bytes = new Map<string, number>()
  const previews = new Map<string, { url: string; width: 1200; height: 630; type: 'image/jpeg' }>()
  if (sessionIds.length === 0) return { photos, bytes, previews }
  const rows = await em.execute<PhotoRow[]>(GALLERY_QUERIES.photos, [sessionIds])
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
  }
  return { photos, bytes, previews }
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
