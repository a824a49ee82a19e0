import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startEmbeddedPostgres, type EmbeddedDatabase } from '@photobooth/server/db/embedded-postgres'
import { migrate, openOrm } from '@photobooth/server/db/orm'
import pg from 'pg'
import type { TestProject } from 'vitest/node'

import { freePort } from './processes.js'
import { TEST_WORKERS } from './workers.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** One migrated database per worker (`testDatabaseUrl()` picks the worker's). */
    databaseUrls: string[]
  }
}

/**
 * One PostgreSQL for the whole run: `DATABASE_URL` when set, else a throwaway embedded cluster.
 * Migrations run once here, as they do at start-up; each worker then gets a copy of the migrated
 * database of its own (`create database … template`), dropped at the end.
 */
export async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | undefined
  let dataDir: string | undefined
  let databaseUrl = process.env.DATABASE_URL
  if (!databaseUrl) {
    dataDir = await mkdtemp(join(tmpdir(), 'photobooth-test-'))
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'photobooth_test' })
    databaseUrl = embedded.url
  }
  const orm = await openOrm(databaseUrl)
  await migrate(orm)
  await orm.close()
  const base = new URL(databaseUrl)
  const template = base.pathname.slice(1)
  const names = Array.from({ length: TEST_WORKERS }, (_, index) => `${template}_w${index + 1}_${randomBytes(4).toString('hex')}`)
  const admin = new pg.Client({ connectionString: databaseUrl.replace(/\/[^/?]*(\?|$)/, '/postgres$1') })
  await admin.connect()
  for (const name of names) await admin.query(`create database ${name} template ${template}`)
  project.provide(
    'databaseUrls',
    names.map((name) => Object.assign(new URL(base), { pathname: `/${name}` }).toString()),
  )
  return async () => {
    for (const name of names) await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
    await embedded?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  }
}
