import { setTimeout as sleep } from 'node:timers/promises'

import { DeadlockException, type EntityManager } from '@mikro-orm/postgresql'

/** Enough for a burst of kiosks; past it, the conflict is not passing and the request fails. */
const ATTEMPTS = 5

/** MikroORM converts the errors of its own calls; a query builder's `execute()` passes the driver's on. */
const transient = (error: unknown) =>
  error instanceof DeadlockException || ['40P01', '40001'].includes(String((error as { code?: unknown } | null)?.code))

/**
 * `em.transactional`, run again when PostgreSQL aborts it for a deadlock or a serialization failure
 * (SQLSTATE 40P01, 40001; MikroORM's DeadlockException): the transaction wrote nothing, and the
 * same work a moment later succeeds. The pause grows and is jittered, so the transactions that
 * collided do not collide again in step.
 */
export async function transactionalWithRetry<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional(work)
    } catch (error) {
      if (!transient(error) || attempt >= ATTEMPTS) throw error
      await sleep(Math.random() * 10 * 2 ** attempt)
    }
  }
}
