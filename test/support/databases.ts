import { randomBytes } from 'node:crypto'

import { openOrm, type Orm } from '@photobooth/server/db/orm'
import { testDatabaseUrl } from './database-url.js'

/**
 * Empty databases of a test file's own on the run's PostgreSQL (a deployment's first start, or a
 * production start on a database nothing has touched), dropped by `dropAll`.
 */
export function scratchDatabases(prefix: string) {
  const names: string[] = []
  let admin: Orm | undefined
  return {
    /** A new empty database's URL. */
    async create(): Promise<string> {
      admin ??= await openOrm(testDatabaseUrl())
      const name = `${prefix}_${randomBytes(6).toString('hex')}`
      await admin.em.getConnection().execute(`create database ${name}`)
      names.push(name)
      const url = new URL(testDatabaseUrl())
      url.pathname = `/${name}`
      return url.toString()
    },
    async dropAll(): Promise<void> {
      for (const name of names.splice(0)) await admin?.em.getConnection().execute(`drop database if exists ${name} with (force)`)
      await admin?.close()
      admin = undefined
    },
  }
}
