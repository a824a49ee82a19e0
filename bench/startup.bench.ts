/**
 * The built server's start: `node server/build.ts` once (what `pnpm build` runs for the server),
 * then `node server/dist/main.js` in production mode, as a process manager runs it, on an empty
 * database (a new one, created for the run): the time from spawn to the first 200 of `GET /readyz`
 * (migrations included). Then SIGTERM, the exit awaited (it must be 0), and warm restarts on the now
 * migrated database, each timed the same way.
 *
 *   pnpm bench:startup                 # or: pnpm bench startup
 *   BENCH_WARM_STARTS=5 pnpm bench:startup
 *   BENCH_SERVER_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' pnpm bench:startup   # node flags for the server
 *
 * With DATABASE_URL, its user must be allowed to create a database (dropped at the end).
 * See bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import pg from 'pg'

import { reportRows, verdict } from './rows.js'
import {
  baseEnvironment,
  Broken,
  cleanUpOnSignals,
  envNumber,
  freePort,
  httpStatus,
  obtainDatabase,
  onCleanup,
  QUICK,
  runBenchmark,
  runToEnd,
  sleep,
} from './support.js'

const WARM_TARGET_S = 3
// Quick mode: the cold start and one warm restart.
const WARM_STARTS = Math.round(envNumber('BENCH_WARM_STARTS', 3, 1, 1))
const READY_TIMEOUT_MS = 60_000
const POLL_MS = 10
/** Extra Node flags for the server (`--cpu-prof`, …), split on spaces. */
const SERVER_ARGS = process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? []

const root = fileURLToPath(new URL('../', import.meta.url))
const mainJs = join(root, 'server/dist/main.js')

const children = new Set<ChildProcess>()
onCleanup('server processes', async () => {
  for (const child of children) child.kill('SIGKILL')
})

cleanUpOnSignals()

type Start = { listeningS: number; readyS: number; stopS: number; log: string }

/** Spawn to the first 200 of /readyz, then SIGTERM to exit (which must be 0). */
async function startAndStop(env: NodeJS.ProcessEnv, port: number): Promise<Start> {
  const started = performance.now()
  const child = spawn(process.execPath, [...SERVER_ARGS, mainJs], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let log = ''
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  void exited.then((value) => (exit = value))

  let listeningS: number | undefined
  let readyS: number | undefined
  while (readyS === undefined) {
    if (exit) throw new Broken(`the server exited (${exit.signal ?? exit.code}) before it was ready:\n${log}`)
    if (performance.now() - started > READY_TIMEOUT_MS) throw new Broken(`not ready after ${READY_TIMEOUT_MS / 1000} s:\n${log}`)
    const answer = await httpStatus(`http://127.0.0.1:${port}/readyz`)
    if (answer !== undefined) listeningS ??= (performance.now() - started) / 1000
    if (answer === 200) readyS = (performance.now() - started) / 1000
    else await sleep(POLL_MS)
  }
  const stopping = performance.now()
  child.kill('SIGTERM')
  const { code, signal } = await exited
  children.delete(child)
  if (code !== 0) throw new Broken(`after SIGTERM the server exited with ${signal ?? code}, not 0:\n${log}`)
  return { listeningS: listeningS!, readyS, stopS: (performance.now() - stopping) / 1000, log }
}

const s = (seconds: number) => `${seconds.toFixed(2)} s`

async function main(): Promise<void> {
  console.log(
    `start-up benchmark: node ${process.version}; the built server in production mode, cold on an empty database, then ${WARM_STARTS} warm restarts`,
  )
  const buildS = await runToEnd(process.execPath, ['--import', 'tsx', 'server/build.ts'], root)
  console.log(`built server/dist/main.js in ${s(buildS)} (node --import tsx server/build.ts)`)

  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-startup-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const adminUrl = await obtainDatabase(dataDir)
  // An empty database of its own: no table, no migration applied.
  const database = `photobooth_startup_${randomBytes(4).toString('hex')}`
  const admin = new pg.Pool({ connectionString: adminUrl, max: 1 })
  onCleanup('admin pool', () => admin.end())
  await admin.query(`create database ${database}`)
  onCleanup('empty database', async () => void (await admin.query(`drop database if exists ${database} with (force)`)))
  const url = new URL(adminUrl)
  url.pathname = `/${database}`

  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...baseEnvironment(),
    NODE_ENV: 'production',
    MODE: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: url.href,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    CDN_URL: 'https://cdn.bench.example',
    GALLERY_URL: 'https://photos.bench.example/g',
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // Quick mode: no 5 s for a load balancer to see /readyz fail before the drain (the stop's figure then leaves it out).
    ...(QUICK ? { SHUTDOWN_DELAY_MS: '0' } : {}),
  }

  const cold = await startAndStop(env, port)
  const check = new pg.Pool({ connectionString: url.href, max: 1 })
  const { rows } = await check.query<{ n: number }>(
    `select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
  )
  await check.end()
  console.log(
    `cold: listening at ${s(cold.listeningS)}, ready at ${s(cold.readyS)} (${rows[0]!.n} tables created); SIGTERM to exit 0 in ${s(cold.stopS)}`,
  )

  const warm: Start[] = []
  for (let index = 0; index < WARM_STARTS; index++) {
    const start = await startAndStop(env, port)
    warm.push(start)
    console.log(
      `warm ${index + 1}: listening at ${s(start.listeningS)}, ready at ${s(start.readyS)}; SIGTERM to exit 0 in ${s(start.stopS)}`,
    )
  }
  const worst = Math.max(...warm.map((start) => start.readyS))
  reportRows([
    {
      row: 'built server (`node server/dist/main.js`, production): empty database to first 200 of `/readyz`',
      value: s(cold.readyS),
      figures: `listening at ${s(cold.listeningS)}; migrations applied (${rows[0]!.n} tables); SIGTERM to exit 0 in ${s(cold.stopS)}; build ${s(buildS)}`,
      target: '(printed)',
      result: 'info',
    },
    {
      row: 'built server: warm restart to first 200 of `/readyz` (worst)',
      value: s(worst),
      figures: `${warm.map((start) => s(start.readyS)).join(', ')} (listening at ${warm.map((start) => s(start.listeningS)).join(', ')}); SIGTERM to exit 0 in ${warm.map((start) => s(start.stopS)).join(', ')}`,
      target: `≤ ${WARM_TARGET_S} s`,
      result: verdict(worst <= WARM_TARGET_S),
    },
  ])
}

await runBenchmark(main)
