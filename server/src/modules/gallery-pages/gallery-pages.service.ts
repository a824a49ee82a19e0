import type { AppContext } from '../../context.js'
import { brandingOfRow } from '../events/index.js'
import { GALLERY_QUERIES, readLiveGallery } from '../gallery/index.js'
import type { ImageStatus } from '../../db/entities/photo.entity.js'
import type { PhotoState } from './gallery-pages.html.js'
import { run } from '../../db/query.js'

/** How the page shows a photo without copies: awaited while queued; never, for one they could not be made of (or from before copies). */
const STATE_OF: Record<ImageStatus, PhotoState> = { queued: 'coming', ready: 'shown', failed: 'unavailable', legacy: 'unavailable' }

export const photoStates = (statuses: ReadonlyMap<string, ImageStatus>) =>
  new Map([...statuses].map(([photoId, status]) => [photoId, STATE_OF[status]]))

/**
 * What a guest's link shows: the live gallery (the JSON route's own reader) from the moment the
 * booth completes it, each photo from its display copies or, until they are made, a placeholder of
 * its shape that the page fills in as they come; a session still waiting for its photos (the booth
 * is shooting); one that ended without any (cancelled, or completed without photos); or nothing.
 */
export async function readGalleryPage(context: Pick<AppContext, 'em' | 'config'>, sessionId: string) {
  const live = await readLiveGallery(context, sessionId)
  if (live) return { kind: 'live', ...live, states: photoStates(live.imageStatuses) } as const
  const [session] = await run(context.em, GALLERY_QUERIES.notLive, [sessionId])
  if (!session) return { kind: 'missing' } as const
  return session.status === 'active'
    ? ({
        kind: 'waiting',
        eventName: session.event_name,
        branding: brandingOfRow(session.event_id, session, context.config.publicUrl),
      } as const)
    : ({ kind: 'ended' } as const)
}
