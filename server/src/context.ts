import type { EntityManager } from '@mikro-orm/postgresql'

import type { Config } from './config.js'

/** What every procedure receives: built per request, no module-level singletons. */
export type AppContext = {
  config: Config
  /** Forked for this request. */
  em: EntityManager
  now: () => Date
}
