import type { AppContext } from '../../context.js'
import { leaveActiveState } from '../sessions/index.js'

export async function cancelSession({ em, now }: Pick<AppContext, 'em' | 'now'>, { sessionId }: { sessionId: string }) {
  await em.transactional((tx) => leaveActiveState(tx, sessionId, { status: 'cancelled' }, now()))
  return { id: sessionId, status: 'cancelled' as const }
}
