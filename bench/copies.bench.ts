/**
 * Photo copies benchmark: what the copies worker (server/src/modules/photos) does with camera photos,
 * on the built server (`node server/dist/main.js`, development mode with its local bucket) in a
 * process of its own, so that its memory is its own. Sessions are made as booths make them: a
 * kiosk's registration, presigned uploads of the photos' bytes, the booth's completion (the SDK).
 *
 * 1. The full-size copy, measured in this process with the service's own code: for a photo EXIF
 *    turns (orientation 6) and an upright one, time, bytes saved, and that the decoded pixels are the
 *    camera's (nothing re-encoded).
 * 2. One 10-photo session (5 upright, 5 turned by EXIF, as a portrait booth's are) of 5184×3456
 *    camera JPEGs at a time, with the worker idle: from the completion's answer to `images_ready_at`
 *    (every photo settled), in rounds; each completion's own latency is the idle side of row 5.
 * 3. The end-of-event burst: 5 such sessions uploaded, then completed at once, on the one instance:
 *    each session's time from its completion's answer to its copies, the worst of them judged; the
 *    server's CPU per photo; the server process's peak RSS (/proc/<pid>/status).
 * 4. While the worker is busy with the burst, more 10-photo sessions (uploaded beforehand) are
 *    completed one by one: their completion latency against the idle one.
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
import { makeFullSize } from '@photobooth/server/modules/photos/photo-copies'
import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import pg from 'pg'
import sharp from 'sharp'

import { reportRows, verdict, type Row } from './rows.js'
import {
  baseEnvironment,
  Broken,
  cameraPhoto,
  cleanUpOnSignals,
  envNumber,
  freePort,
  httpStatus,
  median,
  obtainDatabase,
  onCleanup,
  percentile,
  QUICK,
  runBenchmark,
  runToEnd,
  sleep,
} from './support.js'

// ---------------------------------------------------------------------------------------------
// Parameters and targets

// Quick mode: one round, a burst of 2 sessions, one completion while busy (sessions of 4 photos: LAYOUT).
const ROUNDS = Math.round(envNumber('BENCH_COPIES_ROUNDS', 7, 1, 1))
const BURST_SESSIONS = Math.round(envNumber('BENCH_COPIES_SESSIONS', 5, 1, 2))
const PROBES = Math.round(envNumber('BENCH_COPIES_PROBES', 2, 1, 1))
/** A session's photos in gallery order: `true` where EXIF turns the photo (orientation 6): half of them. */
/** Quick mode: sessions of 4 photos. */
const LAYOUT: readonly boolean[] = [false, true, false, true, false, true, false, true, false, true].slice(0, QUICK ? 4 : 10)
const PHOTOS = LAYOUT.length
const TURNED = LAYOUT.filter(Boolean).length
/** The issue's bound: a 10-photo camera session's copies ready this soon after its completion, the worker idle. */
const SESSION_READY_TARGET_MS = 5_000
/** And the worst session of an end-of-event burst (5 × 10 at once). */
const BURST_SESSION_TARGET_MS = 20_000
/** COPIES_LINK_WAIT_MS's default: a session's gallery links are held this long at most for its copies. */
const LINK_WAIT_MS = 30_000
/** The issue's bound on one instance's memory through a burst: 1 GB (10^9 bytes). */
const RSS_TARGET_BYTES = 1e9
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

cleanUpOnSignals()

// ---------------------------------------------------------------------------------------------
// Figures

const MiB = 1024 * 1024
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const msText = (ms: number) => `${ms.toFixed(0)} ms`
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
    ...baseEnvironment(),
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
      turned && (row.width !== 3456 || row.height !== 5184) ? `turned photo recorded ${row.width}×${row.height}` : '',
      row.full_size! < row.size_bytes ? '' : 'the stripped copy is not smaller',
      row.copies?.map((copy) => Math.max(copy.width, copy.height)).join(',') === '480,720,960,1600'
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

/** The full-size copy of one photo: the camera's pixels byte for byte (checked decoded), without its metadata. */
async function measureOneFullSize(original: Buffer, turned: boolean): Promise<Row> {
  const size = turned ? { width: 3456, height: 5184 } : { width: 5184, height: 3456 }
  const made = await timed(() => makeFullSize(original, size))
  const expected = turned ? 'stripped, tagged' : 'stripped'
  if (made.result.how !== expected) throw new Broken(`makeFullSize of ${turned ? 'a turned' : 'an upright'} photo: ${made.result.how}`)
  const [before, after] = await Promise.all([decode(original), decode(made.result.bytes)])
  const identical = before.width === after.width && before.height === after.height && before.data.equals(after.data)
  if (!identical) throw new Broken('the full-size copy decodes to other pixels than the camera photo')
  const saved = original.length - made.result.bytes.length
  console.log(
    `${turned ? 'turned' : 'upright'} photo: ${mb(original.length)} → ${mb(made.result.bytes.length)} (${saved} bytes of metadata left out), decoded pixels identical, ${made.ms.map(msText).join(', ')}`,
  )
  return {
    row: `${turned ? 'orientation-6' : 'upright'} camera photo (5184×3456): full size without re-encoding`,
    value: 'pixels identical',
    figures: `decoded (and turned) pixels equal to the original's; ${saved.toLocaleString('en-US')} B of metadata left out (EXIF: GPS, make, model, serial; kept: orientation, capture time) of ${mb(original.length)}; ${msText(median(made.ms))} (median of ${TIMING_REPEATS}, makeFullSize)`,
    target: '(printed)',
    result: 'info',
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(
    `copies benchmark: node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}; ` +
      `${ROUNDS} rounds of one ${PHOTOS}-photo session, a burst of ${BURST_SESSIONS} sessions, ${PROBES} completions while busy; ` +
      `COPIES_CONCURRENCY ${process.env.COPIES_CONCURRENCY ?? `(default: ${availableParallelism()})`}`,
  )
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-copies-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))

  // The database and the build run while the camera photos are made.
  const databaseReady = obtainDatabase(dataDir)
  const built = runToEnd(process.execPath, ['--import', 'tsx', 'server/build.ts'], root)
  const started = performance.now()
  // Quick mode: two distinct photos (one upright, one turned), each uploaded twice a session.
  const photos: Buffer[] = []
  for (const [index, turned] of LAYOUT.entries()) {
    photos.push(await cameraPhoto({ seed: QUICK ? (turned ? 2 : 1) : index + 1, orientation: turned ? 6 : 1 }))
    process.stdout.write(`\rcamera photos: ${index + 1} of ${PHOTOS} made or read (${elapsed(started)})`)
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
  const fullSizeRows = [await measureOneFullSize(photos[LAYOUT.indexOf(true)]!, true), await measureOneFullSize(photos[0]!, false)]

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
  // The sessions completed while the burst is worked through, uploaded now: then their completions come at once.
  const probes: { sessionId: string; keys: string[] }[] = []
  for (let probe = 1; probe <= PROBES; probe++) {
    const sessionId = await register(clients)
    probes.push({ sessionId, keys: await upload(clients, sessionId, photos) })
  }
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
  for (const [index, { sessionId, keys }] of probes.entries()) {
    const probe = index + 1
    await sleep(500)
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
  const worstWait = Math.max(...waits)
  const heldPast = waits.filter((ms) => ms > LINK_WAIT_MS).length
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
      figures: `p50 ${s(median(readyMs))}, p95 ${s(percentile(readyMs, 95))} (nearest rank) over ${ROUNDS} rounds: ${readyMs.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s; worker idle before each; links are held up to COPIES_LINK_WAIT_MS (${s(LINK_WAIT_MS)})`,
      target: `p95 ≤ ${s(SESSION_READY_TARGET_MS)}`,
      result: verdict(percentile(readyMs, 95) <= SESSION_READY_TARGET_MS),
    },
    {
      row: `burst of ${BURST_SESSIONS} sessions × ${PHOTOS} camera photos (half turned by EXIF) completed at once, one instance: the worst session's copies ready after its completion`,
      value: s(worstWait),
      figures:
        `each session: ${waits.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s; all ${burstPhotos} photos ${s(burstMs)} after the completions were sent, ${rate.toFixed(2)} photos/s (the last completion answered at ${s(lastAnswerMs)}); ` +
        `COPIES_CONCURRENCY ${process.env.COPIES_CONCURRENCY ?? `(default: ${availableParallelism()} cores)`}; load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ${heldPast} of ${BURST_SESSIONS} sessions past the links' ${s(LINK_WAIT_MS)} wait`,
      target: `≤ ${s(BURST_SESSION_TARGET_MS)}`,
      result: verdict(worstWait <= BURST_SESSION_TARGET_MS),
    },
    {
      row: `copies' CPU per camera photo (5184×3456, half turned), through the burst`,
      value: `${(burstCpuMs / burstPhotos).toFixed(0)} ms`,
      figures: `server process CPU (user + system, /proc/<pid>/stat) over the burst ${s(burstCpuMs)} for ${burstPhotos} photos: reading the upload, the full-size copy, four WebP copies, the link preview of each first photo, storing and settling; ${(burstCpuMs / burstMs).toFixed(2)} of ${availableParallelism()} cores busy`,
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
    ...fullSizeRows,
  )
  console.log(
    `\nload average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  reportRows(rows)
}

await runBenchmark(main)
