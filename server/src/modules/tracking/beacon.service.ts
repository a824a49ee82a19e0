import { TrackBeacon } from '@photobooth/sdk/schemas'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { isLive } from '../sessions/session-state.js'
import { recordTracking } from './tracking.service.js'

/** The body arrives as text (a beacon) or already parsed; anything off the variants is "bad body". */
function parseBeacon(body: unknown) {
  let value = body
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body)
    } catch {
      throw new AppError('BAD_REQUEST', 'bad body')
    }
  }
  const parsed = TrackBeacon.safeParse(value)
  if (!parsed.success) throw new AppError('BAD_REQUEST', 'bad body')
  return parsed.data
}

/**
 * Counts a view or a share. Countable: a live gallery (completed with photos: the others answer
 * 404, so nobody can view them), or the page of a public event.
 */
export async function trackBeacon({ db, now }: Pick<AppContext, 'db' | 'now'>, body: unknown): Promise<void> {
  const beacon = parseBeacon(body)
  const [target] =
    'sessionId' in beacon
      ? await db.rows<{ event_id: string }>(
          `select st.event_id from session s join event_set st on st.id = s.set_id
            where s.id = $1 and ${isLive('s')}`,
          [beacon.sessionId],
        )
      : await db.rows<{ event_id: string }>('select id as event_id from event where id = $1 and not is_private', [beacon.eventId])
  if (!target) throw new AppError('BAD_REQUEST', 'no such session or event')
  await recordTracking(db, {
    kind: beacon.kind,
    eventId: target.event_id,
    sessionId: 'sessionId' in beacon ? beacon.sessionId : undefined,
    channel: beacon.kind === 'share' ? beacon.channel : undefined,
    at: now(),
  })
}
