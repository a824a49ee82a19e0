/**
 * What the benchmarks share: quick mode, parameters from the environment, clean-up on exit and on
 * Ctrl-C, a database, the answer checks, small statistics, and camera photos.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { get, type ServerResponse } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import { loadSettings, type Settings } from '@photobooth/server/config'
import { startEmbeddedPostgres } from '@photobooth/server/db/embedded-postgres'
import type { RunningServer } from '@photobooth/server/server'
import type pg from 'pg'

import type { launchChromium } from '../test/support/browser.js'
import { makeCameraJpeg, type CameraOptions } from '../test/support/camera.js'

/**
 * Quick mode (`pnpm bench --quick`, which CI runs; the runner sets `BENCH_QUICK=1`): each benchmark
 * does its set-up and every check of its answers, then one short round of each timed part; no
 * figure is judged (its rows are printed as `info`). A wrong answer still breaks the run. This is
 * the one place a benchmark learns it is quick.
 */
export const QUICK_VARIABLE = 'BENCH_QUICK'
export const QUICK = process.env[QUICK_VARIABLE] === '1'

/** A number from the environment, else `fallback`, or `quick` in quick mode (the variable still wins). */
export function envNumber(name: string, fallback: number, min: number, quick = fallback): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return QUICK ? quick : fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`)
  return value
}

const cleanups: { name: string; run: () => Promise<void> }[] = []
let cleaningUp: Promise<void> | undefined

/** Registers a clean-up step; they run in reverse order of registration. */
export function onCleanup(name: string, run: () => Promise<void>): void {
  cleanups.push({ name, run })
}

/**
 * Ctrl-C or SIGTERM: says so, runs the clean-up, exits 130. `on`, not `once`: tsx relays a second
 * signal, and an unhandled one would kill the clean-up. `first` runs before the clean-up (e.g. cut a
 * download in flight).
 */
export function cleanUpOnSignals(first?: () => void): void {
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      first?.()
      console.error(`\n${signal}: stopping…`)
      void cleanUp().finally(() => process.exit(130))
    })
  }
}

/** Runs every clean-up step once, however many times it is called. */
export async function cleanUp(): Promise<void> {
  cleaningUp ??= (async () => {
    for (const { name, run } of cleanups.reverse()) {
      try {
        await run()
      } catch (error) {
        console.error(`clean-up of ${name} failed:`, error)
      }
    }
  })()
  return cleaningUp
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** `DATABASE_URL`, or an embedded PostgreSQL in `dataDir` on a free port, stopped at clean-up. */
export async function obtainDatabase(dataDir: string): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL
  const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'photobooth_bench' })
  onCleanup('embedded PostgreSQL', () => embedded.stop())
  return embedded.url
}

/** The service as a benchmark runs it: development settings, its data under `dataDir`, on a free port of 127.0.0.1. */
export function benchSettings(dataDir: string, databaseUrl: string): Settings {
  // No purge: the benchmarks' events may have started long ago. Raw queries' rows checked as in
  // production (the first of each result: ROW_CHECKS), so that the figures are production's.
  return {
    ...loadSettings({ MODE: 'development', DATA_DIR: dataDir, PURGE: 'off', ROW_CHECKS: 'first' }),
    databaseUrl,
    host: '127.0.0.1',
    port: 0,
    seedDemo: false,
  }
}

/** Runs `work` in one transaction on one connection of `pool`: the seed lands whole or not at all. */
export async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    await work(client)
    await client.query('commit')
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/** A check of a benchmark failed: its figures would mean nothing (the runner shows it as BROKEN). */
export class Broken extends Error {}

/**
 * Whether an answer a row judges holds (no errors, no duplicates, nothing fetched that should not
 * be), as opposed to a figure: a FAIL row in a full run; in quick mode, where no row is judged, a
 * wrong answer breaks the run instead, so that CI sees it.
 */
export function answerHolds(ok: boolean, what: string): boolean {
  if (!ok && QUICK) throw new Broken(what)
  return ok
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length

/** The median (of an even count, the mean of the middle two). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Nearest rank: of 7 values, p95 is the worst. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** The environment a server process of ours gets from the bench's own: the path, the home, the temp folder. */
export const baseEnvironment = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR })

/** `GET url`: its status and text. */
export async function getText(url: string, headers?: Record<string, string>): Promise<{ status: number; text: string }> {
  const response = await fetch(url, headers ? { headers } : undefined)
  return { status: response.status, text: await response.text() }
}

/**
 * Our answer and the baseline's to the same `GET`: the same status and byte for byte the same JSON,
 * or the run is broken ("the two servers do not answer the same"), with the first difference shown.
 * Answers ours' text.
 */
export async function assertSameAnswers(label: string, oursUrl: string, baselineUrl: string): Promise<string> {
  const [ours, baseline] = await Promise.all([getText(oursUrl), getText(baselineUrl)])
  const differ = (why: string) => new Broken(`the two servers do not answer the same: ${label}: ${why}`)
  if (ours.status !== baseline.status) {
    throw differ(
      `status ${ours.status} (ours) vs ${baseline.status} (baseline)\n  ours:     ${ours.text.slice(0, 300)}\n  baseline: ${baseline.text.slice(0, 300)}`,
    )
  }
  const parse = (text: string, who: string) => {
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw differ(`${who} did not answer JSON: ${text.slice(0, 300)}`)
    }
  }
  if (ours.text !== baseline.text) {
    let at = 0
    while (at < ours.text.length && ours.text[at] === baseline.text[at]) at++
    const same = isDeepStrictEqual(parse(ours.text, 'ours'), parse(baseline.text, 'baseline'))
    throw differ(
      `${same ? 'the same JSON value, but the strings differ (key order or spacing)' : 'the bodies differ'}, first at character ${at}\n` +
        `  ours:     …${ours.text.slice(Math.max(0, at - 80), at + 120)}\n  baseline: …${baseline.text.slice(Math.max(0, at - 80), at + 120)}`,
    )
  }
  return ours.text
}

/** Runs a benchmark: a failed check or a fault is said and exits 1; the clean-up always runs. */
export async function runBenchmark(main: () => Promise<void>): Promise<void> {
  try {
    await main()
  } catch (error) {
    process.exitCode = 1
    if (error instanceof Broken) console.error(`\nABORTED: ${error.message}`)
    else console.error('\nbenchmark failed:', error)
  } finally {
    await cleanUp()
  }
}

/** A baseline's JSON answer, as a hand-written server sends it: stringify, writeHead with the length, end. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** Runs a command in `cwd` to its end; answers its seconds. Its output is shown only if it fails. */
export function runToEnd(command: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0
        ? resolve((performance.now() - started) / 1000)
        : reject(new Broken(`${command} ${args.join(' ')} exited with ${code}:\n${output}`)),
    )
  })
}

/** The status of `GET url`, or undefined while nothing listens. */
export function httpStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: 2_000 }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode))
    })
    request.once('error', () => resolve(undefined))
    request.once('timeout', () => request.destroy())
  })
}

/**
 * A camera photo (test/support/camera.ts), made once and kept in the temp folder for later runs: one
 * takes seconds of CPU. The folder's name carries a hash of camera.ts, so a change there makes new ones.
 */
export async function cameraPhoto(options: Pick<CameraOptions, 'seed' | 'orientation'>): Promise<Buffer> {
  const source = readFileSync(new URL('../test/support/camera.ts', import.meta.url))
  const folder = join(tmpdir(), `photobooth-bench-camera-${createHash('sha256').update(source).digest('hex').slice(0, 12)}`)
  const path = join(folder, `seed-${options.seed ?? 1}-orientation-${options.orientation ?? 1}.jpg`)
  if (existsSync(path)) return readFile(path)
  const photo = await makeCameraJpeg(options)
  await mkdir(folder, { recursive: true })
  // Written aside, then renamed: two benchmarks at once never read half a photo.
  const partial = `${path}.${process.pid}.part`
  await writeFile(partial, photo)
  await rename(partial, path)
  return photo
}

export type Browser = Awaited<ReturnType<typeof launchChromium>>
export type Page = Awaited<ReturnType<Browser['newPage']>>

/**
 * A browser benchmark's set-up: its app (apps/<app>) built if stale, a temp folder, Chromium, and
 * the service on the benchmark's database, each stopped at clean-up. Imported here when called:
 * the other benchmarks load neither the browser driver nor the service through this file.
 */
export async function startBrowserBench(app: 'kiosk' | 'console'): Promise<{ dataDir: string; browser: Browser; running: RunningServer }> {
  const [{ buildApps }, { launchChromium }, { startServer }, { createLogger }] = await Promise.all([
    import('../apps/build.js'),
    import('../test/support/browser.js'),
    import('@photobooth/server/server'),
    import('@photobooth/server/logger'),
  ])
  buildApps({ staleOnly: true, only: [app] })
  const dataDir = await mkdtemp(join(tmpdir(), `photobooth-${app}-bench-`))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const browser = await launchChromium()
  onCleanup('Chromium', () => browser.close())
  const running = await startServer({
    settings: benchSettings(dataDir, await obtainDatabase(dataDir)),
    logger: createLogger({ silent: true }),
  })
  onCleanup('the service', () => running.stop())
  return { dataDir, browser, running }
}

/** A network as DevTools emulates it: round trip, throughput each way in bytes a second, and the CPU slowed (1: as it is). */
export type EmulatedNetwork = {
  latencyMs: number
  downBytesPerSecond: number
  upBytesPerSecond: number
  connectionType: 'cellular4g' | 'wifi'
  cpuSlowdown?: number
}

/** Puts a page behind the network (and CPU) given, through the DevTools protocol; answers the session. */
export async function emulate(page: Page, network: EmulatedNetwork) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: network.latencyMs,
    downloadThroughput: network.downBytesPerSecond,
    uploadThroughput: network.upBytesPerSecond,
    connectionType: network.connectionType,
  })
  if (network.cpuSlowdown !== undefined) await cdp.send('Emulation.setCPUThrottlingRate', { rate: network.cpuSlowdown })
  return cdp
}

/**
 * When the page was interactive, in ms from its navigation: its app's mark `mark` (set when the
 * render that makes it usable is committed) and its first contentful paint, the later of the two.
 */
export function interactiveAt(page: Page, mark: string): Promise<number> {
  // A string: tsx's names for inner functions (`__name`) do not exist in the page.
  return page.evaluate<number>(`new Promise((resolve) => {
    const poll = () => {
      const mark = performance.getEntriesByName(${JSON.stringify(mark)})[0]
      const painted = performance.getEntriesByName('first-contentful-paint')[0]
      if (mark && painted) resolve(Math.max(mark.startTime, painted.startTime))
      else setTimeout(poll, 20)
    }
    poll()
  })`)
}
