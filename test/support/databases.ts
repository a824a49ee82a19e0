import { randomBytes } from 'node:crypto'

import pg from 'pg'

import { testDatabaseUrl } from './database-url.js'

/**
 * Empty databases of a test file's own on the run's PostgreSQL (a deployment's first start, or a
 * production start on a database nothing has touched), dropped by `dropAll`.
 *
 * A plain client rather than the service's ORM: the service's statement timeout is meant for
 * guests' requests, and a forced drop on a loaded CI machine (a checkpoint, other workers' files)
 * outlasted it once and failed a drill that had passed.
 */
export function scratchDatabases(prefix: string) {
  const names: string[] = []
  let admin: pg.Client | undefined
  return {
    /** A new empty database's URL. */
    async create(): Promise<string> {
      if (!admin) {
        admin = new pg.Client({ connectionString: testDatabaseUrl() })
        await admin.connect()
      }
      const name = `${prefix}_${randomBytes(6).toString('hex')}`
      await admin.query(`create database ${name}`)
      names.push(name)
      const url = new URL(testDatabaseUrl())
      url.pathname = `/${name}`
      return url.toString()
    },
    async dropAll(): Promise<void> {
      for (const name of names.splice(0)) await admin?.query(`drop database if exists ${name} with (force)`)
      await admin?.end()
      admin = undefined
    },
  }
}
