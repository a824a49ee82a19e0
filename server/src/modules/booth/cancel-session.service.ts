import type { EntityManager } from '@mikro-orm/postgresql'

import { leaveActiveState } from '../sessions/session-state.js'

export async function cancelSession(em: EntityManager, sessionId: string, now: Date) {
  await em.transactional((tx) => leaveActiveState(tx, sessionId, { status: 'cancelled' }, now))
  return { id: sessionId, status: 'cancelled' as const }
}
