/**
 * How long anything waits on PostgreSQL. A database that stalls (a failover, a network partition)
 * otherwise holds every request, and the pool's connections, for as long as it does.
 */
export type DatabaseTimeouts = {
  /**
   * Opening a connection: a database that does not answer its handshake is away. As long as the wait
   * for a free one: a saturated machine (a browser starting beside the service) took over 3 s to open one.
   */
  connectMs: number
  /**
   * Waiting for a free connection of the pool: longer than a burst's queue (200 kiosks registering at
   * once wait a few seconds for one of the pool's 10), short enough to bound a request.
   */
  acquireMs: number
  /** One statement: cancelled by the server after this long, abandoned by the client a moment later; 0: no limit. */
  statementMs: number
}

/** The service's: a request that needs the database answers within acquire + statement (docs/production.md, Outages). */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 10_000, acquireMs: 10_000, statementMs: 5_000 }

/**
 * What the client gives up after when the server says nothing (a stall): the server's own cancel
 * (`statement_timeout`) comes first when it is alive, with its proper error.
 */
const CLIENT_MARGIN_MS = 1_000

/** The same bounds for every pg client of the service: the ORM's pool, Better Auth's, the listener. */
export function pgTimeouts(timeouts: DatabaseTimeouts) {
  return {
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs > 0 ? timeouts.statementMs + CLIENT_MARGIN_MS : undefined,
    // Keepalives: a connection a NAT or a failover drops in silence would otherwise hear nothing, for ever.
    keepAlive: true,
  }
}
