import type { Orm, QueryListener } from './orm.js'

/** Plain SQL with `$1`-style parameters, for the hot public paths. */
export type PoolSql = {
  rows<T>(text: string, values: readonly unknown[]): Promise<T[]>
}

type PgConnection = { query(config: { text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }> }

/**
 * The gallery pages are read on every guest's phone: they take a connection from the ORM's own
 * pool and hand the statement to the pg driver as it is, skipping the query builder and the
 * inlining of parameters (about 7% of a gallery request). Writes stay with the entity manager.
 */
export function createPoolSql(orm: Orm, onQuery?: QueryListener): PoolSql {
  const pool = orm.em.getConnection().getKnex().client as {
    acquireConnection(): Promise<PgConnection>
    releaseConnection(connection: PgConnection): Promise<unknown>
  }
  return {
    async rows<T>(text: string, values: readonly unknown[]) {
      onQuery?.(text)
      const connection = await pool.acquireConnection()
      try {
        return (await connection.query({ text, values })).rows as T[]
      } finally {
        await pool.releaseConnection(connection)
      }
    },
  }
}
