/** A transaction-scoped advisory lock on a name (`hashtext` of it): released when the transaction ends. */
export const ADVISORY_LOCK = 'select pg_advisory_xact_lock(hashtext(?))'

/** The readiness probe's question: does the database answer at all. */
export const PING = 'select 1'
