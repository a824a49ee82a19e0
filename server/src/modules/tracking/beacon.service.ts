import { TrackBeacon } from '@photobooth/sdk/schemas'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { Event } from '../../db/entities/event.entity.js'
import { LIVE } from '../sessions/index.js'
import { Session } from '../../db/entities/session.entity.js'
import { recordTracking } from './tracking.service.js'

/** The body arrives as text (a beacon) or already parsed; anything off the variants is "bad body". */
function parseBeacon(body: unknown) {
  let value = body
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body)
    } catch {
      throw new AppError('bad_body', 'bad body')
    }
  }
  const parsed = TrackBeacon.safeParse(value)
  if (!parsed.success) throw new AppError('bad_body', 'bad body')
  return parsed.data
}

/**
 * Counts a view or a share. Countable: a live gallery (completed with photos: the others answer
 * 404, so nobody can view them), or the page of a public event.
 */
export async function trackBeacon({ em, now }: Pick<AppContext, 'em' | 'now'>, body: unknown): Promise<void> {
  const beacon = parseBeacon(body)
  const eventId =
    'sessionId' in beacon
      ? (await em.findOne(Session, { id: beacon.sessionId, ...LIVE }, { populate: ['set'], fields: ['set.event'] }))?.set.event.id
      : (await em.findOne(Event, { id: beacon.eventId, isPrivate: false }, { fields: ['id'] }))?.id
  if (eventId === undefined) throw new AppError('no_such_target', 'no such session or event')
  await recordTracking(em, {
    kind: beacon.kind,
    eventId,
    sessionId: 'sessionId' in beacon ? beacon.sessionId : undefined,
    channel: beacon.kind === 'share' ? beacon.channel : undefined,
    at: now(),
  })
}
