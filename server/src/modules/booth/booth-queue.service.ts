import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { AppError } from '../../errors.js'
import type { BoothCaller } from '../booth-keys/index.js'
import { EventSet } from '../../db/entities/event-set.entity.js'
import { Event } from '../../db/entities/event.entity.js'
import { NO_SUCH_SET } from '../events/index.js'
import { fullName } from '../common/index.js'
import { SessionGuest } from '../../db/entities/session-guest.entity.js'
import { Session } from '../../db/entities/session.entity.js'
import { CLAIM_QUERIES } from './claims.queries.js'
import { run } from '../../db/query.js'

/** Every event the booth's key covers (all, for an unscoped key) with its sets, newest start first: booths work private events too. */
export async function listBoothEvents({ em, booth }: Pick<AppContext, 'em'> & { booth: BoothCaller }) {
  const scope = booth.eventIds ? { id: { $in: booth.eventIds } } : {}
  const events = await em.find(Event, scope, { orderBy: { startAt: 'desc', id: 'asc' } })
  const sets = groupBy(
    await em.find(EventSet, booth.eventIds ? { event: scope } : {}, { orderBy: { createdAt: 'asc', slug: 'asc' } }),
    (set) => set.event.id,
  )
  return {
    events: events.map((event) => ({
      id: event.id,
      slug: event.slug,
      name: event.name,
      startAt: event.startAt.getTime(),
      isPrivate: event.isPrivate,
      sets: (sets.get(event.id) ?? []).map((set) => ({ id: set.id, slug: set.slug, name: set.name })),
    })),
  }
}

/**
 * A set's active sessions, oldest first: whom the booth shoots next. Sessions another booth holds
 * (a live claim of another key, or of another `holder` of this key) are left out.
 */
export async function listQueue(
  deps: Pick<AppContext, 'em' | 'now'> & { booth: BoothCaller },
  { setId, holder }: { setId: string; holder?: string | undefined },
) {
  const { em } = deps
  const set = await em.findOne(EventSet, setId)
  if (!set) throw new AppError('no_such_set', NO_SUCH_SET)
  const held = (await run(em, CLAIM_QUERIES.heldByOthers, [setId, deps.now(), deps.booth.keyId, holder ?? ''])).map((row) => row.sessionId)
  const guests = await em.find(
    SessionGuest,
    { session: { set: setId, status: 'active', ...(held.length > 0 && { id: { $nin: held } }) } },
    { populate: ['session'], orderBy: { session: { createdAt: 'asc', id: 'asc' }, position: 'asc' } },
  )
  return {
    set: { id: set.id, slug: set.slug, name: set.name },
    sessions: [...groupBy(guests, (guest) => guest.session).entries()].map(([session, sessionGuests]) =>
      toQueuedSession(session, sessionGuests),
    ),
  }
}

/** One session as a booth's queue shows it (a claim's answer): its guests' names in their order. */
export async function readQueuedSession({ em }: Pick<AppContext, 'em'>, sessionId: string) {
  const session = await em.findOneOrFail(Session, sessionId, { disableIdentityMap: true })
  return toQueuedSession(session, await em.find(SessionGuest, { session: sessionId }, { orderBy: { position: 'asc' } }))
}

const toQueuedSession = (session: Session, guests: readonly SessionGuest[]) => ({
  id: session.id,
  label: session.label,
  createdAt: session.createdAt.getTime(),
  guests: guests.map((guest) => ({ name: fullName(guest), firstName: guest.firstName, lastName: guest.lastName })),
})
