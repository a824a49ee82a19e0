import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { BoothCaller } from '../booth-keys/index.js'
import { EventSet } from '../../db/entities/event-set.entity.js'
import { NO_SUCH_SET } from '../events/index.js'
import { NO_SUCH_SESSION } from '../sessions/index.js'
import { Session } from '../../db/entities/session.entity.js'

/**
 * A scoped booth key (its `eventIds`) sees and acts only on its events: a set or a session of another
 * event answers the same 404 as one that does not exist, so that the key learns nothing of the rest.
 * An unscoped key passes.
 */
export async function checkBoothScope(
  { em }: Pick<AppContext, 'em'>,
  booth: BoothCaller,
  target: { sessionId: string } | { setId: string },
): Promise<void> {
  const events = booth.eventIds
  if (!events) return
  if ('sessionId' in target) {
    if ((await em.count(Session, { id: target.sessionId, set: { event: { $in: events } } })) === 0) {
      throw new AppError('no_such_session', NO_SUCH_SESSION)
    }
  } else if ((await em.count(EventSet, { id: target.setId, event: { $in: events } })) === 0) {
    throw new AppError('no_such_set', NO_SUCH_SET)
  }
}
