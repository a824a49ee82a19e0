import type { EntityManager } from '@mikro-orm/postgresql'

import type { Config } from './config.js'
import type { PoolSql } from './db/pool-sql.js'
import type { ContactLabels } from './modules/contact/contact-labels.js'
import type { ContactMailer } from './modules/contact/contact.service.js'
import type { Caller } from './modules/booth-keys/booth-keys.service.js'
import type { PhotoStorage } from './modules/storage/storage.js'

/** What every procedure receives: built per request, no module-level singletons. */
export type AppContext = {
  config: Config
  /** Forked for this request, on first use. */
  em: EntityManager
  /** Plain SQL for the hot public paths (gallery reads, counts). */
  db: PoolSql
  now: () => Date
  /** For faults that happen after the answer has started (a zip whose source fails mid-way). */
  logError: (error: unknown) => void
  /** Tells the delivery dispatcher that messages were queued. */
  wakeDelivery: () => void
  /** Absent when the deployment has no storage configured: routes that need it answer 503. */
  storage?: PhotoStorage
  /** The labels of the published contact page. */
  contactLabels: ContactLabels
  /** Absent when mail is not configured: the contact form answers 503. */
  contactMailer?: ContactMailer
  /** The booth whose key authenticated this request (booth routes only). */
  caller?: Caller
}
