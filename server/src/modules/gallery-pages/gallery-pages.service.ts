import type { AppContext } from '../../context.js'
import { GALLERY_QUERIES } from '../gallery/gallery.queries.js'
import { readLiveGallery } from '../gallery/gallery.service.js'

/**
 * What a guest's link shows: the live gallery (the JSON route's own reader), a session still
 * waiting for its photos (the booth is shooting, or its photos' copies are being made: at most
 * COPIES_LINK_WAIT_MS after completion, the wait the links themselves are held for), one that ended
 * without any (cancelled, or completed without photos), or nothing.
 */
export async function readGalleryPage(context: Pick<AppContext, 'em' | 'config' | 'now'>, sessionId: string) {
  const live = await readLiveGallery(context, sessionId)
  if (live) {
    const preparing = !live.imagesReady && context.now().getTime() < live.completedAt + context.config.copies.linkWaitMs
    return preparing
      ? ({ kind: 'waiting', stage: 'preparing', eventName: live.gallery.event.name } as const)
      : ({ kind: 'live', ...live } as const)
  }
  const [session] = await context.em.execute<{ status: string; event_name: string }[]>(GALLERY_QUERIES.notLive, [sessionId])
  if (!session) return { kind: 'missing' } as const
  return session.status === 'active'
    ? ({ kind: 'waiting', stage: 'shooting', eventName: session.event_name } as const)
    : ({ kind: 'ended' } as const)
}
