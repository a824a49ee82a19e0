import type { EntityManager } from '@mikro-orm/postgresql'

import { ADVISORY_LOCK } from './db.queries.js'
import { run } from './query.js'

/**
 * Takes a transaction-scoped advisory lock: instances that start together do `name`'s work one at
 * a time. Released when `tx` ends. (PostgreSQL has no word for it in the entity manager.)
 */
export async function lockFor(tx: EntityManager, name: string): Promise<void> {
  await run(tx, ADVISORY_LOCK, [name])
}
