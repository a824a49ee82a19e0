import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * Takes a transaction-scoped advisory lock: instances that start together do `name`'s work one at
 * a time. Released when `tx` ends. (PostgreSQL has no word for it in the entity manager.)
 */
export async function lockFor(tx: EntityManager, name: string): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [name])
}
