import type { EntityManager } from '@mikro-orm/postgresql'

import type { Config } from './config.js'
import type { Reader } from './db/reader.js'
import type { Caller } from './modules/booth-keys/booth-keys.service.js'
import type { PhotoStorage } from './modules/storage/storage.js'

/** What every procedure receives: built per request, no module-level singletons. */
export type AppContext = {
  config: Config
  /** Forked for this request, on first use. */
  em: EntityManager
  /** Lean reads for the hot public pages. */
  db: Reader
  now: () => Date
  /** Absent when the deployment has no storage configured: routes that need it answer 503. */
  storage?: PhotoStorage
  /** The booth whose key authenticated this request (booth routes only). */
  caller?: Caller
}
