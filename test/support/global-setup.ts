import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { startEmbeddedPostgres, type EmbeddedDatabase } from '@photobooth/server/db/embedded-postgres'
import { migrate, openOrm } from '@photobooth/server/db/orm'
import type { TestProject } from 'vitest/node'

import { freePort } from './processes.js'

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string
  }
}

/**
 * One PostgreSQL for the whole run: `DATABASE_URL` when set, else a throwaway embedded cluster.
 * Migrations run once here, as they do at start-up.
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
  project.provide('databaseUrl', databaseUrl)
  return async () => {
    await embedded?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  }
}
