import type { FilterQuery } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'

import { AppError } from '../../errors.js'
import { Session } from '../../db/entities/session.entity.js'

export const NO_SUCH_SESSION = 'no such session'

/**
 * The visibility rule: a session is a live gallery once completed with at least one photo
 * (the partial index `session_live_idx` has the same predicate). `LIVE` for the entity manager's
 * queries, `isLive(alias)` for the gallery's SQL: the same two conditions.
 */
export const LIVE = { status: 'completed', photoCount: { $gt: 0 } } as const satisfies FilterQuery<Session>
export const isLive = (alias: string) => `${alias}.status = 'completed' and ${alias}.photo_count > 0`

/** The session must exist (404) and still be active (409): the booth should re-read its queue. */
export async function requireActiveSession(em: EntityManager, sessionId: string): Promise<void> {
  const row = await em.findOne(Session, sessionId, { fields: ['status'], disableIdentityMap: true })
  if (!row) throw new AppError('no_such_session', NO_SUCH_SESSION)
  if (row.status !== 'active') throw new AppError('session_not_active', `session is already ${row.status}`)
}

/**
 * Moves an active session on, atomically: of any number of concurrent attempts exactly one
 * wins; the others answer 409 as if they had come second.
 */
export async function leaveActiveState(
  tx: EntityManager,
  sessionId: string,
  to: { status: 'completed'; photoCount: number } | { status: 'cancelled' },
  now: Date,
): Promise<void> {
  const moved = await tx.nativeUpdate(
    Session,
    { id: sessionId, status: 'active' },
    to.status === 'completed'
      ? { status: 'completed', completedAt: now, photoCount: to.photoCount }
      : { status: 'cancelled', cancelledAt: now },
  )
  if (moved === 0) {
    await requireActiveSession(tx, sessionId)
    throw new AppError('session_not_active', 'session was completed or cancelled concurrently')
  }
}
