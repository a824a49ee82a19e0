import type { AppContext } from '../../context.js'
import { GALLERY_QUERIES } from '../gallery/gallery.queries.js'
import { readLiveGallery } from '../gallery/gallery.service.js'

/**
 * What a guest's link shows: the live gallery (the JSON route's own reader), a session still
 * waiting for its photos, or nothing (unknown, cancelled, completed without photos).
 */
export async function readGalleryPage(context: Pick<AppContext, 'em' | 'config'>, sessionId: string) {
  const live = await readLiveGallery(context, sessionId)
  if (live) return { kind: 'live', ...live } as const
  const [pending] = await context.em.execute<{ event_name: string }[]>(GALLERY_QUERIES.pending, [sessionId])
  return pending ? ({ kind: 'waiting', eventName: pending.event_name } as const) : ({ kind: 'missing' } as const)
}
