import { z } from 'zod'

import { query } from './query.js'

/** A transaction-scoped advisory lock on a name (`hashtext` of it): released when the transaction ends. */
export const ADVISORY_LOCK = query(
  'db.advisoryLock',
  'select pg_advisory_xact_lock(hashtext(?))',
  z.strictObject({ pg_advisory_xact_lock: z.literal('') }),
)

/** The readiness probe's question: does the database answer at all. */
export const PING = query('db.ping', 'select 1', z.strictObject({ '?column?': z.literal(1) }))

/** Announces work on a channel (`pg_notify`): params, the channel and an empty payload. */
export const NOTIFY = query('db.notify', 'select pg_notify(?, ?)', z.strictObject({ pg_notify: z.literal('') }))
