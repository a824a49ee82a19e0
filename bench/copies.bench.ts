/**
 * Photo copies benchmark: what the copies worker (server/src/modules/photos) does with camera photos,
 * on the built server (`node server/dist/main.js`, development mode with its local bucket) in a
 * process of its own, so that its memory is its own. Sessions are made as booths make them: a
 * kiosk's registration, presigned uploads of the photos' bytes, the booth's completion (the SDK).
 *
 * 1. The full-size decision, measured in this process with the service's own code and sharp: for a
 *    photo EXIF turns (orientation 6), the re-encode at FULL_SIZE_QUALITY (92), and at 95 to compare:
 *    size, time, PSNR and SSIM against the original's pixels decoded and turned; for an upright
 *    photo, the lossless rewrite: time, bytes saved, and that the decoded pixels are the same.
 * 2. One 10-photo session (8 upright, 2 turned by EXIF) of 5184×3456 camera JPEGs at a time, with the
 *    worker idle: from the completion's answer to `images_ready_at` (every photo settled), in rounds;
 *    each completion's own latency is the idle side of row 4.
 * 3. A burst: 50 such sessions uploaded, then completed at once, on the one instance: the time until
 *    all 500 photos are ready, photos/s, and the server process's peak RSS (/proc/<pid>/status).
 * 4. While the worker is busy with the burst, more 10-photo sessions are completed one by one: their
 *    completion latency against the idle one.
 *
 * Ten distinct camera photos (test/support/camera.ts) are made once and uploaded again and again:
 * each upload is an object of its own, copied on its own.
 *
 *   pnpm exec tsx bench/copies.bench.ts             # or: pnpm bench copies
 *   BENCH_COPIES_ROUNDS=3 BENCH_COPIES_SESSIONS=10 pnpm exec tsx bench/copies.bench.ts   # a shorter try
 *   COPIES_CONCURRENCY=1 pnpm exec tsx bench/copies.bench.ts                             # passed to the server
 *   DATABASE_URL=postgres://… pnpm exec tsx bench/copies.bench.ts
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { openOrm } from '@photobooth/server/db/orm'
import { newId } from '@photobooth/server/ids'
import { createBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { FULL_SIZE_QUALITY, makeFullSize, MAX_INPUT_PIXELS } from '@photobooth/server/modules/photos/photo-copies'
import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import pg from 'pg'
import sharp from 'sharp'

import { makeCameraJpeg } from '../test/support/camera.js'
import { reportRows, verdict, type Row } from './rows.js'
import { Broken, cleanUp, envNumber, freePort, httpStatus, obtainDatabase, onCleanup, runBenchmark, runToEnd } from './support.js'

// ---------------------------------------------------------------------------------------------
// Parameters and targets

const ROUNDS = Math.round(envNumber('BENCH_COPIES_ROUNDS', 7, 1))
const BURST_SESSIONS = Math.round(envNumber('BENCH_COPIES_SESSIONS', 50, 1))
const PROBES = Math.round(envNumber('BENCH_COPIES_PROBES', 5, 1))
/** A session's photos in gallery order: `true` where EXIF turns the photo (orientation 6). */
const LAYOUT = [false, false, true, false, false, false, true, false, false, false] as const
const PHOTOS = LAYOUT.length
const TURNED = LAYOUT.filter(Boolean).length
/** COPIES_LINK_WAIT_MS's default: a session's gallery links are held this long at most for its copies. */
const SESSION_READY_TARGET_MS = 30_000
/** The bound on one instance's memory through a burst: 1 GB (10^9 bytes). */
const RSS_TARGET_BYTES = 1e9
const QUALITY_COMPARED = 95
const TIMING_REPEATS = 3
/** How often the database is asked whether the copies are ready: times come from `images_ready_at`, not from the polls. */
const POLL_MS = 50
const BURST_POLL_MS = 500
const SAMPLE_MS = 100
const ROUND_TIMEOUT_MS = 180_000
const BURST_TIMEOUT_MS = 20 * 60_000
const CLIENT_IP_HEADER = 'X-Bench-Client-Ip'
const UPLOADS_AT_ONCE = 3 // per session, as the SDK's uploadPhotos
const SESSIONS_UPLOADING_AT_ONCE = 4

const root = fileURLToPath(new URL('../', import.meta.url))
const mainJs = join(root, 'server/dist/main.js')

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping…`)
    void cleanUp().finally(() => process.exit(130))
  })
}

// ---------------------------------------------------------------------------------------------
// Figures

const MiB = 1024 * 1024
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const msText = (ms: number) => `${ms.toFixed(0)} ms`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
/** Nearest rank: of 7 values, p95 is the worst. */
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}
const elapsed = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`

// ---------------------------------------------------------------------------------------------
// The server process and its memory

/** One reading of /proc/<pid>/status (Linux): resident set, the kernel's own peak of it, threads. */
type ProcStatus = { rss: number; hwm: number; threads: number }

function readStatus(pid: number): ProcStatus | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8')
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN)
    return { rss: field('VmRSS') * 1024, hwm: field('VmHWM') * 1024, threads: field('Threads') }
  } catch {
    return undefined
  }
}

/** CPU time (user + system, every thread) of a process so far, in ms. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

/** Samples the server's RSS every SAMPLE_MS for as long as it runs; windows keep their own peak. */
class Memory {
  private timer: NodeJS.Timeout
  last: ProcStatus = { rss: 0, hwm: 0, threads: 0 }
  peak = 0
  maxThreads = 0
  samples = 0
  private windowPeak = 0

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), SAMPLE_MS)
    this.timer.unref()
    this.sample()
  }

  sample(): void {
    const status = readStatus(this.pid)
    if (!status) return
    this.samples++
    this.last = status
    this.peak = Math.max(this.peak, status.rss)
    this.windowPeak = Math.max(this.windowPeak, status.rss)
    this.maxThreads = Math.max(this.maxThreads, status.threads)
  }

  /** Starts a window: its peak from now. */
  open(): void {
    this.sample()
    this.windowPeak = this.last.rss
  }

  close(): number {
    this.sample()
    return this.windowPeak
  }

  stop(): void {
    clearInterval(this.timer)
  }
}

type Server = { url: string; pid: number; child: ChildProcess; log: () => string; memory: Memory }

async function startServer(databaseUrl: string, dataDir: string): Promise<Server> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    MODE: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SEED_DEMO: 'false',
    // Gallery links are still held and released in the outbox; nothing is sent.
    DELIVERY: 'off',
    LOG_LEVEL: 'warn',
    // Each registration says its own kiosk's IP, so that 60 a minute per client is never the limit.
    CLIENT_IP_HEADER,
    ...(process.env.COPIES_CONCURRENCY ? { COPIES_CONCURRENCY: process.env.COPIES_CONCURRENCY } : {}),
  }
  const child = spawn(process.execPath, [mainJs], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  const relay = (chunk: Buffer) => {
    const text = chunk.toString()
    log += text
    for (const line of text.split('\n').filter(Boolean)) console.log(`  server | ${line.slice(0, 400)}`)
  }
  child.stdout.on('data', relay)
  child.stderr.on('data', relay)
  let exit: string | undefined
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = String(signal ?? code)
      resolve()
    }),
  )
  onCleanup('server process', async () => {
    if (exit !== undefined) return
    child.kill('SIGTERM')
    const late = setTimeout(() => child.kill('SIGKILL'), 20_000)
    await exited
    clearTimeout(late)
  })
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  for (;;) {
    if (exit !== undefined) throw new Broken(`the server exited (${exit}) before it was ready:\n${log}`)
    if (performance.now() - started > 60_000) throw new Broken(`the server was not ready after 60 s:\n${log}`)
    if ((await httpStatus(`${url}/readyz`)) === 200) break
    await sleep(20)
  }
  return { url, pid: child.pid!, child, log: () => log, memory: new Memory(child.pid!) }
}

// ---------------------------------------------------------------------------------------------
// Sessions, as kiosks and booths make them

/** The clients of the run: a kiosk's (its own client IP each), the booth's (its key), and the one set. */
type Clients = { kiosk: (ip: string) => PhotoBoothClient; booth: PhotoBoothClient; setId: string }

let registrations = 0

async function register(clients: Clients): Promise<string> {
  const n = ++registrations
  const ip = `10.20.${(n >> 8) & 255}.${n & 255}`
  const session = await clients.kiosk(ip).kiosk.registerGuests({
    params: { setId: clients.setId },
    body: { guests: [{ name: `Guest ${n}`, email: `guest.${n}@copies.bench.example` }] },
  })
  return session.id
}

/** Presigned uploads of the photos, each PUT with exactly its signed headers, a few at a time: the keys, in order. */
async function upload(clients: Clients, sessionId: string, photos: readonly Buffer[]): Promise<string[]> {
  const { uploads } = await clients.booth.booth.createUploads({ params: { sessionId }, body: { count: photos.length } })
  let next = 0
  const worker = async () => {
    while (next < uploads.length) {
      const index = next++
      const target = uploads[index]!
      const response = await fetch(target.url, { method: target.method, headers: target.headers, body: photos[index]! })
      if (!response.ok) throw new Broken(`upload ${target.key}: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, worker))
  return uploads.map((target) => target.key)
}

/** The booth's completion, timed from the request to its answer. */
async function complete(clients: Clients, sessionId: string, keys: string[]): Promise<{ latencyMs: number; answeredAt: number }> {
  const started = performance.now()
  const completed = await clients.booth.booth.complete({ params: { sessionId }, body: { photos: keys } })
  const latencyMs = performance.now() - started
  if (completed.photos.length !== keys.length)
    throw new Broken(`completion of ${sessionId} recorded ${completed.photos.length} photos, ${keys.length} sent`)
  return { latencyMs, answeredAt: Date.now() }
}

type Progress = { ready: number; failed: number; queued: number; total: number; readyAt: Map<string, number> }

/** Where the copies of these sessions stand; `readyAt`: each ready session's `images_ready_at` (epoch ms). */
async function progress(pool: pg.Pool, sessionIds: string[]): Promise<Progress> {
  const [photos, sessions] = await Promise.all([
    pool.query<{ ready: number; failed: number; queued: number; total: number }>(
      `select count(*) filter (where image_status = 'ready')::int as ready, count(*) filter (where image_status = 'failed')::int as failed,
              count(*) filter (where image_status = 'queued')::int as queued, count(*)::int as total
         from photo where session_id = any($1::text[])`,
      [sessionIds],
    ),
    pool.query<{ id: string; ready_at: number }>(
      `select id, extract(epoch from images_ready_at)::float8 * 1000 as ready_at from session where id = any($1::text[]) and images_ready_at is not null`,
      [sessionIds],
    ),
  ])
  const row = photos.rows[0]!
  return { ...row, readyAt: new Map(sessions.rows.map((session) => [session.id, session.ready_at])) }
}

/** Waits until every photo of the sessions is settled and each session has its `images_ready_at`; a failed photo breaks the run. */
async function waitReady(
  pool: pg.Pool,
  sessionIds: string[],
  { timeoutMs, pollMs, onTick }: { timeoutMs: number; pollMs: number; onTick?: (state: Progress) => void },
): Promise<Progress> {
  const started = performance.now()
  let lastTick = started
  for (;;) {
    const state = await progress(pool, sessionIds)
    if (state.failed > 0) {
      const { rows } = await pool.query<{ image_error: string }>(
        `select image_error from photo where session_id = any($1::text[]) and image_status = 'failed' limit 3`,
        [sessionIds],
      )
      throw new Broken(`${state.failed} photos failed their copies: ${rows.map((row) => row.image_error).join('; ')}`)
    }
    if (state.queued === 0 && state.readyAt.size === sessionIds.length) {
      if (state.ready !== sessionIds.length * PHOTOS)
        throw new Broken(`${state.ready} photos ready, expected ${sessionIds.length * PHOTOS}`)
      return state
    }
    if (performance.now() - started > timeoutMs)
      throw new Broken(`copies not ready after ${s(timeoutMs)}: ${state.ready} of ${state.total} photos ready`)
    if (onTick && performance.now() - lastTick >= 10_000) {
      lastTick = performance.now()
      onTick(state)
    }
    await sleep(pollMs)
  }
}

/** What the worker left on a session's photos: as the issue asks, checked once. */
async function checkCopies(pool: pg.Pool, sessionId: string): Promise<void> {
  const { rows } = await pool.query<{
    position: number
    width: number
    height: number
    size_bytes: number
    full_size: number | null
    full_etag: string | null
    copies: { width: number; height: number }[] | null
    preview: boolean
  }>(
    'select position, width, height, size_bytes, full_size, full_etag, copies, preview from photo where session_id = $1 order by position',
    [sessionId],
  )
  for (const row of rows) {
    const turned = LAYOUT[row.position - 1]!
    const problems = [
      row.full_size === null || row.full_etag === null ? 'no full-size copy' : '',
      turned
        ? row.width === 3456 && row.height === 5184
          ? ''
          : `turned photo recorded ${row.width}×${row.height}`
        : row.full_size! < row.size_bytes
          ? ''
          : 'the stripped copy is not smaller',
      row.copies?.map((copy) => Math.max(copy.width, copy.height)).join(',') === '480,960,1600'
        ? ''
        : `display copies ${JSON.stringify(row.copies)}`,
      row.preview === (row.position === 1) ? '' : 'link preview on the wrong photo',
    ].filter(Boolean)
    if (problems.length > 0) throw new Broken(`photo ${row.position} of session ${sessionId}: ${problems.join(', ')}`)
  }
}

// ---------------------------------------------------------------------------------------------
// The full-size decision, measured

type Raw = { data: Buffer; width: number; height: number; channels: number }

async function decode(jpeg: Buffer): Promise<Raw> {
  // `.rotate()` applies an EXIF orientation (none on our copies): the pixels as a viewer shows them.
  const { data, info } = await sharp(jpeg).rotate().raw().toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height, channels: info.channels }
}

/** PSNR over every sample (R, G, B), in dB. */
function psnr(a: Raw, b: Raw): number {
  if (a.data.length !== b.data.length) throw new Broken(`PSNR of ${a.width}×${a.height} against ${b.width}×${b.height}`)
  let sum = 0
  for (let i = 0; i < a.data.length; i++) {
    const d = a.data[i]! - b.data[i]!
    sum += d * d
  }
  const mse = sum / a.data.length
  return mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse)
}

/** Mean SSIM of the luma (BT.601) over non-overlapping 8×8 blocks, C1 = (0.01·255)², C2 = (0.03·255)². */
function ssim(a: Raw, b: Raw): number {
  const C1 = (0.01 * 255) ** 2
  const C2 = (0.03 * 255) ** 2
  const { width, height, channels } = a
  const luma = (data: Buffer, i: number) => 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!
  let total = 0
  let blocks = 0
  for (let by = 0; by + 8 <= height; by += 8) {
    for (let bx = 0; bx + 8 <= width; bx += 8) {
      let sa = 0
      let sb = 0
      let saa = 0
      let sbb = 0
      let sab = 0
      for (let y = by; y < by + 8; y++) {
        let i = (y * width + bx) * channels
        for (let x = 0; x < 8; x++, i += channels) {
          const ya = luma(a.data, i)
          const yb = luma(b.data, i)
          sa += ya
          sb += yb
          saa += ya * ya
          sbb += yb * yb
          sab += ya * yb
        }
      }
      const ma = sa / 64
      const mb = sb / 64
      const va = saa / 64 - ma * ma
      const vb = sbb / 64 - mb * mb
      const cov = sab / 64 - ma * mb
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2))
      blocks++
    }
  }
  return total / blocks
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number[] }> {
  const ms: number[] = []
  let result: T | undefined
  for (let i = 0; i < TIMING_REPEATS; i++) {
    const started = performance.now()
    result = await work()
    ms.push(performance.now() - started)
  }
  return { result: result!, ms }
}

/** The re-encode `makeFullSize` does for a turned photo, at another quality: the same sharp pipeline. */
const reEncode = (original: Buffer, quality: number) =>
  sharp(original, { failOn: 'none', limitInputPixels: MAX_INPUT_PIXELS }).rotate().keepIccProfile().jpeg({ quality }).toBuffer()

async function measureFullSize(turned: Buffer, upright: Buffer): Promise<Row[]> {
  const size = { width: 5184, height: 3456 }
  const reference = await decode(turned)

  const ours = await timed(() => makeFullSize(turned, size))
  if (ours.result.how !== 're-encoded') throw new Broken(`makeFullSize of a turned photo: ${ours.result.how}`)
  // The replica at 92 must be the service's own bytes, so that the 95 beside it is a fair comparison.
  const replica = await reEncode(turned, FULL_SIZE_QUALITY)
  if (!replica.equals(ours.result.bytes))
    throw new Broken(
      `the bench's re-encode at ${FULL_SIZE_QUALITY} is not makeFullSize's (${replica.length} vs ${ours.result.bytes.length} bytes)`,
    )
  const other = await timed(() => reEncode(turned, QUALITY_COMPARED))
  const at = async (bytes: Buffer) => {
    const pixels = await decode(bytes)
    if (pixels.width !== 3456 || pixels.height !== 5184)
      throw new Broken(`the re-encoded photo is ${pixels.width}×${pixels.height}, not turned upright`)
    return { bytes: bytes.length, psnr: psnr(reference, pixels), ssim: ssim(reference, pixels) }
  }
  const q92 = await at(ours.result.bytes)
  const q95 = await at(other.result)
  const sizeVs = (bytes: number) =>
    `${mb(bytes)} (${((bytes / turned.length - 1) * 100).toFixed(1)}% vs the original's ${mb(turned.length)})`
  console.log(
    `turned photo: original ${mb(turned.length)}; at ${FULL_SIZE_QUALITY}: ${sizeVs(q92.bytes)}, PSNR ${q92.psnr.toFixed(2)} dB, SSIM ${q92.ssim.toFixed(4)}, ${ours.ms.map(msText).join(', ')}`,
  )
  console.log(
    `              at ${QUALITY_COMPARED}: ${sizeVs(q95.bytes)}, PSNR ${q95.psnr.toFixed(2)} dB, SSIM ${q95.ssim.toFixed(4)}, ${other.ms.map(msText).join(', ')}`,
  )

  const stripped = await timed(() => makeFullSize(upright, size))
  if (stripped.result.how !== 'stripped') throw new Broken(`makeFullSize of an upright photo: ${stripped.result.how}`)
  const [before, after] = await Promise.all([decode(upright), decode(stripped.result.bytes)])
  const identical = before.width === after.width && before.height === after.height && before.data.equals(after.data)
  if (!identical) throw new Broken('the lossless rewrite of an upright photo decodes to other pixels')
  const saved = upright.length - stripped.result.bytes.length
  console.log(
    `upright photo: ${mb(upright.length)} → ${mb(stripped.result.bytes.length)} (${saved} bytes of metadata left out), decoded pixels identical, ${stripped.ms.map(msText).join(', ')}`,
  )

  const what = `orientation-6 camera photo (5184×3456, ${mb(turned.length)}), full size re-encoded`
  return [
    {
      row: `${what} at ${FULL_SIZE_QUALITY} (FULL_SIZE_QUALITY)`,
      value: `PSNR ${q92.psnr.toFixed(1)} dB`,
      figures: `SSIM ${q92.ssim.toFixed(4)} (luma, 8×8 blocks) vs the original decoded and turned; ${sizeVs(q92.bytes)}; ${msText(median(ours.ms))} (median of ${TIMING_REPEATS}, makeFullSize)`,
      target: '(printed)',
      result: 'info',
    },
    {
      row: `${what} at ${QUALITY_COMPARED}, for comparison`,
      value: `PSNR ${q95.psnr.toFixed(1)} dB`,
      figures: `SSIM ${q95.ssim.toFixed(4)}; ${sizeVs(q95.bytes)}, ${((q95.bytes / q92.bytes - 1) * 100).toFixed(0)}% over ${FULL_SIZE_QUALITY}; ${msText(median(other.ms))} (median of ${TIMING_REPEATS}, the same sharp pipeline)`,
      target: '(printed)',
      result: 'info',
    },
    {
      row: 'upright camera photo (orientation 1): full size by the lossless rewrite',
      value: 'pixels identical',
      figures: `decoded pixels equal to the original's; ${saved.toLocaleString('en-US')} B of metadata left out (EXIF: GPS, make, model, serial) of ${mb(upright.length)}; ${msText(median(stripped.ms))} (median of ${TIMING_REPEATS}, makeFullSize)`,
      target: '(printed)',
      result: 'info',
    },
  ]
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `copies benchmark: node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}; ` +
      `${ROUNDS} rounds of one ${PHOTOS}-photo session, a burst of ${BURST_SESSIONS} sessions, ${PROBES} completions while busy; ` +
      `COPIES_CONCURRENCY ${process.env.COPIES_CONCURRENCY ?? '(default, 2)'}`,
  )
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-copies-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))

  // The database and the build run while the camera photos are made.
  const databaseReady = obtainDatabase(dataDir)
  const built = runToEnd(process.execPath, ['--import', 'tsx', 'server/build.ts'], root)
  const started = performance.now()
  const photos: Buffer[] = []
  for (const [index, turned] of LAYOUT.entries()) {
    photos.push(await makeCameraJpeg({ seed: index + 1, orientation: turned ? 6 : 1 }))
    process.stdout.write(`\rcamera photos: ${index + 1} of ${PHOTOS} made (${elapsed(started)})`)
  }
  const photoBytes = photos.reduce((sum, photo) => sum + photo.length, 0)
  console.log(`; ${mb(photoBytes)} a session (${PHOTOS - TURNED} upright, ${TURNED} with orientation 6)`)
  const databaseUrl = await databaseReady
  console.log(`built server/dist/main.js in ${s((await built) * 1000)}`)

  const server = await startServer(databaseUrl, dataDir)
  onCleanup('memory sampler', async () => server.memory.stop())
  const idle = server.memory.last
  console.log(`server ${server.url} (pid ${server.pid}) ready: RSS ${mib(idle.rss)}, ${idle.threads} threads`)

  const orm = await openOrm(databaseUrl)
  onCleanup('ORM', () => orm.close())
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on('error', () => {})
  onCleanup('polling pool', () => pool.end())
  const suffix = newId()
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
  const { event, sets } = await createEvent(orm.em.fork(), {
    slug: `bench-copies-${suffix}`,
    name: 'Copies benchmark',
    startAt: new Date(),
    sets: [{ slug: 'booth', name: 'Booth' }],
  })
  if (process.env.DATABASE_URL) onCleanup('seeded rows', async () => void (await pool.query('delete from event where id = $1', [event.id])))
  const boothKey = (await createBoothKey(orm.em.fork(), `Copies bench ${suffix}`)).key
  const clients: Clients = {
    kiosk: (ip) => createClient({ baseUrl: server.url, headers: { [CLIENT_IP_HEADER]: ip } }),
    booth: createClient({ baseUrl: server.url, boothKey, timeoutMs: 120_000 }),
    setId: sets[0]!.id,
  }
  const rows: Row[] = []

  // 1. The full-size decision (the server is idle meanwhile).
  console.log("\nfull-size copies, measured here with the service's makeFullSize and sharp:")
  const qualityRows = await measureFullSize(photos[LAYOUT.indexOf(true)]!, photos[0]!)

  // 2. One session at a time, the worker idle: readiness, and the idle completions.
  console.log(`\none ${PHOTOS}-photo session at a time (the worker idle before each):`)
  const readyMs: number[] = []
  const idleLatency: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const sessionId = await register(clients)
    const keys = await upload(clients, sessionId, photos)
    const { latencyMs, answeredAt } = await complete(clients, sessionId, keys)
    const state = await waitReady(pool, [sessionId], { timeoutMs: ROUND_TIMEOUT_MS, pollMs: POLL_MS })
    const ms = state.readyAt.get(sessionId)! - answeredAt
    readyMs.push(ms)
    idleLatency.push(latencyMs)
    if (round === 1) await checkCopies(pool, sessionId)
    console.log(
      `  round ${round}: completion answered in ${msText(latencyMs)}; every copy ready ${s(ms)} after it; server RSS now ${mib(server.memory.last.rss)}`,
    )
  }
  const sessionPeak = server.memory.peak

  // 3. The burst: 50 sessions uploaded, then completed at once.
  console.log(
    `\nburst: ${BURST_SESSIONS} sessions of ${PHOTOS} photos registered and uploaded (${mb(photoBytes * BURST_SESSIONS)}), then completed at once`,
  )
  const uploadStarted = performance.now()
  const burst: { sessionId: string; keys: string[] }[] = []
  let nextSession = 0
  await Promise.all(
    Array.from({ length: SESSIONS_UPLOADING_AT_ONCE }, async () => {
      while (nextSession < BURST_SESSIONS) {
        nextSession++
        const sessionId = await register(clients)
        burst.push({ sessionId, keys: await upload(clients, sessionId, photos) })
        if (burst.length % 10 === 0) console.log(`  ${burst.length} of ${BURST_SESSIONS} sessions uploaded (${elapsed(uploadStarted)})`)
      }
    }),
  )
  const burstIds = burst.map((one) => one.sessionId)
  await sleep(1_000)
  server.memory.open()
  const rssBefore = server.memory.last.rss
  const cpuBefore = processCpuMs(server.pid)
  const burstStarted = performance.now()
  const burstStartedAt = Date.now()
  const loadAtStart = loadavg()[0]!
  const burstCompletions = await Promise.all(burst.map((one) => complete(clients, one.sessionId, one.keys)))
  const lastAnswerMs = Math.max(...burstCompletions.map((one) => one.answeredAt)) - burstStartedAt
  const burstLatency = burstCompletions.map((one) => one.latencyMs)
  console.log(
    `  ${BURST_SESSIONS} completions answered within ${s(lastAnswerMs)} (p50 ${msText(median(burstLatency))}, worst ${msText(Math.max(...burstLatency))})`,
  )

  // 4. While the worker works through the burst: one booth's completion at a time.
  const busyLatency: number[] = []
  const queuedAtProbe: number[] = []
  for (let probe = 1; probe <= PROBES; probe++) {
    await sleep(2_000)
    const sessionId = await register(clients)
    const keys = await upload(clients, sessionId, photos)
    const { latencyMs } = await complete(clients, sessionId, keys)
    const state = await progress(pool, burstIds)
    if (state.queued === 0)
      throw new Broken(
        `completion ${probe} while busy came after the burst was done: raise BENCH_COPIES_SESSIONS or lower BENCH_COPIES_PROBES`,
      )
    busyLatency.push(latencyMs)
    queuedAtProbe.push(state.queued)
    console.log(
      `  while busy ${probe}: completion answered in ${msText(latencyMs)} (${state.queued} burst photos still queued, ${elapsed(burstStarted)} into the burst)`,
    )
  }

  const done = await waitReady(pool, burstIds, {
    timeoutMs: BURST_TIMEOUT_MS,
    pollMs: BURST_POLL_MS,
    onTick: (state) =>
      console.log(
        `  ${state.ready} of ${state.total} photos ready, ${state.readyAt.size} of ${BURST_SESSIONS} sessions (${elapsed(burstStarted)}); ` +
          `server RSS ${mib(server.memory.last.rss)}, peak ${mib(server.memory.peak)}, ${server.memory.last.threads} threads`,
      ),
  })
  const burstMs = Math.max(...done.readyAt.values()) - burstStartedAt
  const burstCpuMs = processCpuMs(server.pid) - cpuBefore
  const burstPeak = server.memory.close()
  const hwm = server.memory.last.hwm
  const peakRss = Math.max(burstPeak, hwm)
  const waits = burstCompletions.map((one, index) => done.readyAt.get(burstIds[index]!)! - one.answeredAt)
  const heldPast = waits.filter((ms) => ms > SESSION_READY_TARGET_MS).length
  const burstPhotos = BURST_SESSIONS * PHOTOS
  const rate = burstPhotos / (burstMs / 1000)
  console.log(
    `  all ${burstPhotos} photos ready ${s(burstMs)} after the completions were sent: ${rate.toFixed(2)} photos/s; ` +
      `server CPU ${s(burstCpuMs)} (${(burstCpuMs / burstPhotos).toFixed(0)} ms a photo, ${(burstCpuMs / burstMs).toFixed(2)} cores); ` +
      `RSS peak ${mib(burstPeak)} sampled (${server.memory.samples} samples in all), VmHWM ${mib(hwm)}, up to ${server.memory.maxThreads} threads`,
  )

  rows.push(
    {
      row: `one ${PHOTOS}-photo session (5184×3456 camera JPEGs, ${TURNED} with orientation 6): completion's answer to every copy ready (p95)`,
      value: s(percentile(readyMs, 95)),
      figures: `p50 ${s(median(readyMs))}, p95 ${s(percentile(readyMs, 95))} (nearest rank) over ${ROUNDS} rounds: ${readyMs.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s; worker idle before each; links are held up to COPIES_LINK_WAIT_MS (30 s)`,
      target: `p95 ≤ ${s(SESSION_READY_TARGET_MS)}`,
      result: verdict(percentile(readyMs, 95) <= SESSION_READY_TARGET_MS),
    },
    {
      row: `burst of ${BURST_SESSIONS} completed sessions × ${PHOTOS} camera photos, one instance: every photo ready`,
      value: s(burstMs),
      figures:
        `${burstPhotos} photos, ${rate.toFixed(2)} photos/s from the completions sent (the last answered at ${s(lastAnswerMs)}); ` +
        `server CPU ${(burstCpuMs / burstPhotos).toFixed(0)} ms a photo, ${(burstCpuMs / burstMs).toFixed(2)} of ${availableParallelism()} cores; ` +
        `COPIES_CONCURRENCY ${process.env.COPIES_CONCURRENCY ?? 2}; load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ${heldPast} of ${BURST_SESSIONS} sessions ready more than 30 s after their completion (their links go at 30 s), the last ${s(Math.max(...waits))}`,
      target: '(printed)',
      result: 'info',
    },
    {
      row: `burst of ${BURST_SESSIONS} × ${PHOTOS} camera photos: server peak RSS`,
      value: mib(peakRss),
      figures:
        `the larger of: sampled every ${SAMPLE_MS} ms over the burst ${mib(burstPeak)}, VmHWM (the kernel's peak over the process's life) ${mib(hwm)}; ` +
        `from /proc/<pid>/status of \`node server/dist/main.js\`; before the burst ${mib(rssBefore)}, ` +
        `idle after start ${mib(idle.rss)}; one session at a time peaked at ${mib(sessionPeak)}; up to ${server.memory.maxThreads} threads`,
      target: `< ${mib(RSS_TARGET_BYTES)} (1 GB)`,
      result: verdict(peakRss < RSS_TARGET_BYTES),
    },
    {
      row: `completion of a ${PHOTOS}-photo camera session (the booth's wait): worker busy with the burst ÷ idle (p50)`,
      value: `${(median(busyLatency) / median(idleLatency)).toFixed(2)}×`,
      figures:
        `busy: p50 ${msText(median(busyLatency))}, worst ${msText(Math.max(...busyLatency))} over ${PROBES} (${Math.min(...queuedAtProbe)}–${Math.max(...queuedAtProbe)} burst photos queued); ` +
        `idle: p50 ${msText(median(idleLatency))}, worst ${msText(Math.max(...idleLatency))} over ${ROUNDS}; the ${BURST_SESSIONS} burst completions at once: p50 ${msText(median(burstLatency))}, worst ${msText(Math.max(...burstLatency))}`,
      target: '(printed)',
      result: 'info',
    },
    ...qualityRows,
  )
  console.log(
    `\nload average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  reportRows(rows)
}

await runBenchmark(main)
