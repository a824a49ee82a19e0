import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { AppError } from '../../errors.js'
import { NO_SUCH_EVENT } from '../events/events.service.js'
import { GALLERY_QUERIES, type EventWithSetsRow, type GalleryRow, type LiveSessionRow, type PhotoRow } from './gallery.queries.js'
import { photoUrl } from './photo-url.js'

type Photo = { id: string; url: string; width: number; height: number }

/**
 * The event page in three round trips whatever its size: the event with its sets, the latest
 * live sessions of every set (one lateral query), then all their photos.
 */
export async function readEventPage({ em, config }: Pick<AppContext, 'em' | 'config'>, { slug }: { slug: string }) {
  const sets = await em.execute<EventWithSetsRow[]>(GALLERY_QUERIES.eventWithSets, [slug])
  const event = sets[0]
  if (!event || event.is_private) throw new AppError('NOT_FOUND', NO_SUCH_EVENT)

  const sessions = await em.execute<LiveSessionRow[]>(GALLERY_QUERIES.liveSessions, [event.id])
  const photos = await readPhotos(em, sessions.map((session) => session.id), config.cdnUrl)
  const sessionsBySet = groupBy(sessions, (session) => session.set_id)
  return {
    id: event.id,
    slug: event.slug,
    name: event.name,
    startAt: event.start_at,
    sets: sets
      .filter((row) => row.set_id !== null)
      .map((row) => ({
        id: row.set_id!,
        slug: row.set_slug,
        name: row.set_name,
        sessions: (sessionsBySet.get(row.set_id!) ?? []).map((session) => ({
          id: session.id,
          label: session.label,
          createdAt: session.created_at,
          photos: photos.get(session.id) ?? [],
        })),
      })),
  }
}

/** A live session's gallery: completed and holding at least one photo, else "no such gallery". */
export async function readGallery({ em, config }: Pick<AppContext, 'em' | 'config'>, { sessionId }: { sessionId: string }) {
  const [session] = await em.execute<GalleryRow[]>(GALLERY_QUERIES.gallery, [sessionId])
  if (!session) throw new AppError('NOT_FOUND', 'no such gallery')
  const photos = await readPhotos(em, [session.id], config.cdnUrl)
  return {
    id: session.id,
    label: session.label,
    event: { id: session.event_id, slug: session.event_slug, name: session.event_name, startAt: session.start_at },
    photos: photos.get(session.id) ?? [],
  }
}

/** Photos of the given sessions in gallery order, grouped by session. */
async function readPhotos(em: AppContext['em'], sessionIds: string[], cdnUrl: string): Promise<Map<string, Photo[]>> {
  if (sessionIds.length === 0) return new Map()
  const rows = await em.execute<PhotoRow[]>(GALLERY_QUERIES.photos, [sessionIds])
  const photos = new Map<string, Photo[]>()
  for (const [sessionId, group] of groupBy(rows, (row) => row.session_id)) {
    photos.set(sessionId, group.map((row) => ({ id: row.id, url: photoUrl(cdnUrl, row.storage_key), width: row.width, height: row.height })))
  }
  return photos
}
