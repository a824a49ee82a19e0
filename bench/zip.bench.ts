/**
 * Zip download benchmark: `GET /gallery/:sessionId/zip` of our real server (oRPC OpenAPIHandler in
 * Express 5, archiver's stored zip over the local bucket) for one gallery of 200 photos of 5 MiB,
 * against reading the same 200 files back to back without zipping (`fs.createReadStream`). The
 * photos are legacy rows (sent as uploaded); a second gallery holds the same files as full-size
 * copies (photos `ready`, as the copies worker leaves them: what a zip sends today), zipped in every
 * round too. For context it also measures the zip's own reader alone, and the same files sent back
 * to back over HTTP without zipping.
 *
 *   pnpm bench:zip                     # or: pnpm bench zip; embedded PostgreSQL
 *   DATABASE_URL=postgres://… pnpm bench:zip
 *   BENCH_ROUNDS=5 pnpm bench:zip
 *   BENCH_SERVER_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' pnpm bench:zip   # node flags for the server process
 *
 * The server runs in a child process (zip/server-process.ts), so that its RSS is its own: the
 * HTTP client that downloads the zip (zip/download.ts) and the seeding stay in this process.
 * See bench/README.md ("Zip benchmark") for what is measured and the figures.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes, randomFillSync } from 'node:crypto'
import { createReadStream, readFileSync, type Stats } from 'node:fs'
import { link, mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

import { newId } from '@photobooth/server/ids'
import { photoFileName } from '@photobooth/server/modules/gallery/gallery-files.service'
import { storedZipSize } from '@photobooth/server/modules/gallery/stored-zip'
import pg from 'pg'

import { reportRows, verdict } from './rows.js'
import { cleanUp, cleanUpOnSignals, envNumber, inTransaction, median, obtainDatabase, onCleanup, QUICK, sleep } from './support.js'
import { cutDownload, download, type Download } from './zip/download.js'
import {
  Broken,
  cpuMs,
  MiB,
  type BaselineReport,
  type Command,
  type CommandMessage,
  type Commands,
  type ReplyMessage,
  type RssReport,
} from './zip/protocol.js'

// ---------------------------------------------------------------------------------------------
// Parameters and targets

// Quick mode: one round over a zip of 10 MiB (10 photos of 1 MiB).
const PHOTOS = Math.round(envNumber('BENCH_PHOTOS', 200, 1, 10))
const PHOTO_BYTES = Math.round(envNumber('BENCH_PHOTO_MIB', 5, 0.01, 1) * MiB)
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 3, 1, 1)) // rounds of one zip run and one run of each baseline
const PAUSE_MS = 500 // between measured runs

const TARGET_RSS_GROWTH = 64 * MiB
const TARGET_RATIO = 0.8
const TARGET_FIRST_BYTE_MS = 100

const LABEL = 'Zoë & Björn'

/** A real 8×8 JPEG (jpeg-js, quality 85); each photo is this followed by random bytes up to its size. */
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFRERGCEYGh0dHx8fExciJCIeJBweHx4BBQUFBwYHDggI' +
    'Dh4UERQeHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHv/AABEIAAgACAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQID' +
    'BAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpj' +
    'ZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEB' +
    'AQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdI' +
    'SUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/' +
    '2gAMAwEAAhEDEQA/ACfxV/00/WiOWeROC8FNv3f4H//Z',
  'base64',
)

// ---------------------------------------------------------------------------------------------
// Clean-up (bench/support.ts), also on Ctrl-C

/** Set on Ctrl-C: the download it cuts short is then not reported as a failure. */
let interrupted = false

// ---------------------------------------------------------------------------------------------
// The parent: database, server process, dataset

type ServerProcess = {
  call<C extends Command>(command: C, args: Commands[C]['args']): Promise<Commands[C]['result']>
  /** Stops the server (requests in flight end, the database pool closes); the process stays. */
  stop(): Promise<void>
  /** Closes the channel: the process then checks that nothing is left behind, and exits. */
  release(): void
}

function forkServer(): ServerProcess {
  const child: ChildProcess = fork(fileURLToPath(new URL('./zip/server-process.ts', import.meta.url)), [], {
    // tsx's loader flags, inherited, plus a way to start every memory window from a full GC.
    execArgv: [...process.execArgv, '--expose-gc', ...(process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let nextId = 1
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.on('message', (message: ReplyMessage) => {
    const waiter = pending.get(message.id)
    pending.delete(message.id)
    if (!waiter) return
    if (message.ok) waiter.resolve(message.result)
    else waiter.reject(new Error(`server process: ${message.error}`))
  })
  child.once('exit', (code, signal) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`the server process exited (${signal ?? code})`))
    pending.clear()
  })

  return {
    call<C extends Command>(command: C, args: Commands[C]['args']) {
      return new Promise<Commands[C]['result']>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return reject(new Error('the server process has exited'))
        const id = nextId++
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
        child.send({ id, command, args } satisfies CommandMessage)
      })
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || !child.connected) return
      const id = nextId++
      const stopped = new Promise<void>((resolve) => pending.set(id, { resolve: () => resolve(), reject: () => resolve() }))
      child.send({ id, command: 'stop', args: {} } satisfies CommandMessage)
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 15_000)))
      if ((await Promise.race([stopped, exited, late])) === 'late') {
        child.kill('SIGKILL')
        await exited
      }
      clearTimeout(timer)
    },
    release() {
      if (child.connected) child.disconnect()
    },
  }
}

type Dataset = {
  /** The gallery of legacy photos: each sent as it was uploaded. */
  sessionId: string
  /** The same files as full-size copies (photos `ready`, as the copies worker leaves them): what a zip sends today. */
  copiesSessionId: string
  eventId: string
  paths: string[]
  fileBytes: number
  expectedZipBytes: number
}

/** The local bucket's ETag of a file (local-storage.ts `etagOf`): inode, size and mtime, in hex. */
const localEtag = (stats: Stats) => `"${stats.ino.toString(16)}-${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`

async function seed(server: ServerProcess, pool: pg.Pool, bucketRoot: string): Promise<Dataset> {
  const suffix = newId()
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
  const { eventId, setId } = await server.call('createEvent', { slug: `bench-zip-${suffix}` })
  const sessionId = newId()
  const folder = join(bucketRoot, 'sessions', sessionId)
  await mkdir(folder, { recursive: true })

  const photos = { id: [] as string[], position: [] as number[], storageKey: [] as string[], sizeBytes: [] as number[] }
  const paths: string[] = []
  const content = Buffer.alloc(PHOTO_BYTES)
  JPEG.copy(content)
  const started = performance.now()
  for (let position = 1; position <= PHOTOS; position++) {
    const id = newId()
    const key = `sessions/${sessionId}/${id}.jpg`
    // Distinct random bytes per file after the JPEG itself: nothing to deduplicate or compress.
    randomFillSync(content, JPEG.length)
    const file = await open(join(bucketRoot, key), 'w')
    try {
      await file.writeFile(content)
      // On disk before anything is measured: no writeback competes with the runs.
      await file.sync()
    } finally {
      await file.close()
    }
    photos.id.push(id)
    photos.position.push(position)
    photos.storageKey.push(key)
    photos.sizeBytes.push(content.length)
    paths.push(join(bucketRoot, key))
  }
  const fileBytes = photos.sizeBytes.reduce((sum, size) => sum + size, 0)
  console.log(
    `wrote ${PHOTOS} files of ${(PHOTO_BYTES / MiB).toFixed(2)} MiB (${(fileBytes / MiB).toFixed(0)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )

  await inTransaction(pool, async (client) => {
    await client.query(
      `insert into session (id, set_id, label, status, photo_count, created_at, completed_at)
       values ($1, $2, $3, 'completed', $4, now(), now())`,
      [sessionId, setId, LABEL, PHOTOS],
    )
    await client.query(
      // Sent as stored (legacy rows, no copies to make): the zip's own throughput is what is measured.
      `insert into photo (id, session_id, position, storage_key, width, height, size_bytes, image_status)
       select id, $5, position, storage_key, 4000, 6000, size_bytes, 'legacy'
         from unnest($1::text[], $2::int[], $3::text[], $4::int[]) as t (id, position, storage_key, size_bytes)`,
      [photos.id, photos.position, photos.storageKey, photos.sizeBytes, sessionId],
    )
  })

  // A second gallery of the same bytes as full-size copies: each file linked (not copied) to
  // `sessions/<id>/copies/<photo id>.jpg`, and to an upload key of its own, so both zips read the
  // same page cache; its rows as the copies worker leaves them, with the copy's size and ETag.
  const copiesSessionId = newId()
  const copies = { id: [] as string[], storageKey: [] as string[], sizeBytes: [] as number[], etag: [] as string[] }
  await mkdir(join(bucketRoot, 'sessions', copiesSessionId, 'copies'), { recursive: true })
  for (const [index, path] of paths.entries()) {
    const id = newId()
    const storageKey = `sessions/${copiesSessionId}/${id}.jpg`
    await link(path, join(bucketRoot, storageKey))
    await link(path, join(bucketRoot, `sessions/${copiesSessionId}/copies/${id}.jpg`))
    const stats = await stat(join(bucketRoot, `sessions/${copiesSessionId}/copies/${id}.jpg`))
    if (stats.size !== photos.sizeBytes[index]) throw new Error(`${path}: ${stats.size} bytes linked, ${photos.sizeBytes[index]} written`)
    copies.id.push(id)
    copies.storageKey.push(storageKey)
    copies.sizeBytes.push(stats.size)
    copies.etag.push(localEtag(stats))
  }
  await inTransaction(pool, async (client) => {
    await client.query(
      `insert into session (id, set_id, label, status, photo_count, created_at, completed_at, images_settled, images_ready_at)
       values ($1, $2, $3, 'completed', $4, now(), now(), $4, now())`,
      [copiesSessionId, setId, LABEL, PHOTOS],
    )
    await client.query(
      `insert into photo (id, session_id, position, storage_key, width, height, size_bytes, etag, image_status, image_attempts, full_size, full_etag, copies, preview)
       select id, $5, position, storage_key, 4000, 6000, size_bytes, etag, 'ready', 1, size_bytes, etag,
              '[{"width": 320, "height": 480}, {"width": 640, "height": 960}, {"width": 1066, "height": 1600}]'::jsonb, position = 1
         from unnest($1::text[], $2::int[], $3::text[], $4::int[], $6::text[]) as t (id, position, storage_key, size_bytes, etag)`,
      [copies.id, photos.position, copies.storageKey, copies.sizeBytes, copiesSessionId, copies.etag],
    )
  })
  await pool.query('analyze session, photo')

  // The entries' names as the route makes them: zero-padded to the gallery's count ("Zoë & Björn 001.jpg").
  const expectedZipBytes = storedZipSize(photos.sizeBytes.map((size, index) => ({ name: photoFileName(LABEL, index + 1, PHOTOS), size })))
  if (expectedZipBytes === undefined) throw new Error('the dataset needs ZIP64: the server would not announce a length')
  return { sessionId, copiesSessionId, eventId, paths, fileBytes, expectedZipBytes }
}

/** Reads every file once, so that both sides then read from the page cache alike. */
async function warmPageCache(paths: string[]): Promise<void> {
  const started = performance.now()
  for (const path of paths) {
    await new Promise<void>((resolve, reject) => {
      createReadStream(path, { highWaterMark: MiB })
        .on('data', () => {})
        .once('end', resolve)
        .once('error', reject)
    })
  }
  console.log(`page cache warmed: every file read once in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

// ---------------------------------------------------------------------------------------------
// Measuring a download

type ZipRun = Omit<Download, 'contentLength' | 'tail'> & { rss: RssReport }

/** One download with the server's memory window around it; the body must be `bytes` long, as its Content-Length says. */
async function measureDownload(server: ServerProcess, url: string, contentType: string, bytes: number) {
  await server.call('arm', {})
  const result = await download(url, contentType).catch(async (error: unknown) => {
    // Disarmed in any case, so that a failure does not leave the sampler running.
    await server.call('disarm', {}).catch(() => {})
    throw error
  })
  const rss = await server.call('disarm', {})
  const { contentLength, tail, ...run } = result
  if (contentLength === undefined) throw new Broken(`${url} came without Content-Length`)
  if (run.bytes !== Number(contentLength)) throw new Broken(`${url} sent ${run.bytes} bytes, its Content-Length says ${contentLength}`)
  if (run.bytes !== bytes) throw new Broken(`${url} sent ${run.bytes} bytes, expected ${bytes}`)
  return { run: { ...run, rss }, tail }
}

async function measureZip(server: ServerProcess, url: string, dataset: Dataset): Promise<ZipRun> {
  const { run, tail } = await measureDownload(server, url, 'application/zip', dataset.expectedZipBytes)
  // The end of central directory record: signature, entry count, and where the directory lies.
  const end = tail.subarray(tail.length - 22)
  const entries = end.readUInt16LE(10)
  const directoryBytes = end.readUInt32LE(12)
  const directoryOffset = end.readUInt32LE(16)
  if (end.readUInt32LE(0) !== 0x06054b50 || entries !== PHOTOS || directoryOffset + directoryBytes + 22 !== run.bytes) {
    throw new Broken(`the zip's end record is wrong: ${entries} entries, directory of ${directoryBytes} bytes at ${directoryOffset}`)
  }
  return run
}

// ---------------------------------------------------------------------------------------------
// Figures

/**
 * Linux: busy CPU time of the whole machine (all cores, ms) from /proc/stat, so that each run can
 * show how much CPU something other than the server and this client took meanwhile (other jobs on a
 * shared machine skew wall-clock figures). Assumes the usual USER_HZ of 100.
 */
function machineBusyMs(): number | undefined {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number)
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10
  } catch {
    return undefined
  }
}

/**
 * Runs one measurement and adds the cores that others kept busy meanwhile (undefined off Linux):
 * the machine's busy time over the whole call, less the server's and this process's. /proc/stat
 * counts in 10 ms ticks, so on short runs this is coarse.
 */
async function besideOthers<T extends { rss: RssReport }>(measure: () => Promise<T>): Promise<T & { otherCores?: number }> {
  const machineBefore = machineBusyMs()
  const clientBefore = process.cpuUsage()
  const started = performance.now()
  const result = await measure()
  const wallMs = performance.now() - started
  const client = cpuMs(process.cpuUsage(clientBefore))
  const machineAfter = machineBusyMs()
  if (machineBefore === undefined || machineAfter === undefined) return result
  const others = machineAfter - machineBefore - result.rss.cpuMs - result.rss.armCpuMs - client
  return { ...result, otherCores: Math.max(0, others) / wallMs }
}

const mbPerSecond = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000)
const mib = (bytes: number) => (bytes / MiB).toFixed(1)
const signedMib = (bytes: number) => `${bytes < 0 ? '' : '+'}${mib(bytes)}`
const seconds = (ms: number) => (ms / 1000).toFixed(2)
const cores = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(2))

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((cells) => cells[column]!.length)))
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  console.log(line(header))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const cells of rows) console.log(line(cells))
}

async function main(): Promise<void> {
  cleanUpOnSignals(() => {
    interrupted = true
    cutDownload()
  })
  console.log(
    `zip benchmark: node ${process.version}, ${availableParallelism()} cores, ${PHOTOS} photos × ${(PHOTO_BYTES / MiB).toFixed(2)} MiB, ` +
      `${ROUNDS} rounds of zip, zip of the full-size copies, read, pooled read and send, interleaved; load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  )

  let server: ServerProcess | undefined
  // Last of all: once the server process lets go, it exits.
  onCleanup('server process channel', async () => server?.release())
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-zip-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await obtainDatabase(dataDir)
  const bucketRoot = join(dataDir, 'bucket')

  const forked = (server = forkServer())
  onCleanup('server', async () => {
    // A download cut short by Ctrl-C: the server's stop() waits for requests in flight.
    cutDownload()
    await forked.stop()
  })
  const { port } = await forked.call('start', {
    databaseUrl,
    embedded: !process.env.DATABASE_URL,
    dataDir,
    bucketRoot,
    secret: randomBytes(32).toString('base64url'),
  })

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  // Ctrl-C reaches PostgreSQL too, and it drops the idle connection: that must not crash the clean-up.
  pool.on('error', () => {})
  onCleanup('seeding pool', () => pool.end())
  const dataset = await seed(forked, pool, bucketRoot)
  if (process.env.DATABASE_URL) {
    // Someone else's database: take the seeded rows away again (set, session, photos, tracking cascade).
    onCleanup('seeded rows', async () => void (await pool.query('delete from event where id = $1', [dataset.eventId])))
  }
  await warmPageCache(dataset.paths)
  const idleRss = await forked.call('idleRss', {})

  const url = `http://127.0.0.1:${port}/gallery/${dataset.sessionId}/zip`
  const copiesUrl = `http://127.0.0.1:${port}/gallery/${dataset.copiesSessionId}/zip`
  console.log(`zip: ${url} (${dataset.expectedZipBytes} bytes expected)`)
  console.log(`zip of the full-size copies: ${copiesUrl}\n`)
  const zips: (ZipRun & { otherCores?: number })[] = []
  const copyZips: (ZipRun & { otherCores?: number })[] = []
  const reads: (BaselineReport & { otherCores?: number })[] = []
  const pooledReads: BaselineReport[] = []
  const sends: ZipRun[] = []
  const sendUrl = `http://127.0.0.1:${(await forked.call('serveFiles', { paths: dataset.paths, bytes: dataset.fileBytes })).port}/`
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order, so that neither side always goes first; the first zip starts from the idle server.
    const order =
      round % 2 === 0 ? (['zip', 'copies', 'read', 'pooled', 'send'] as const) : (['send', 'pooled', 'read', 'copies', 'zip'] as const)
    for (const side of order) {
      if (side === 'send') {
        const { run } = await measureDownload(forked, sendUrl, 'application/octet-stream', dataset.fileBytes)
        sends.push(run)
        console.log(
          `  round ${round + 1} send  ${mbPerSecond(run.bytes, run.totalMs).toFixed(0).padStart(5)} MB/s  ${seconds(run.totalMs)} s  ` +
            `server CPU ${seconds(run.rss.cpuMs)} s  RSS +${mib(run.rss.growth)} MiB`,
        )
      } else if (side === 'zip') {
        const run = await besideOthers(() => measureZip(forked, url, dataset))
        zips.push(run)
        console.log(
          `  round ${round + 1} zip   ${mbPerSecond(run.bytes, run.totalMs).toFixed(0).padStart(5)} MB/s  ${seconds(run.totalMs)} s  ` +
            `first byte ${run.firstByteMs.toFixed(1)} ms  server CPU ${seconds(run.rss.cpuMs)} s  ` +
            `RSS peak ${mib(run.rss.peak)} MiB: ${signedMib(run.rss.growth)} on the run's start, ${signedMib(run.rss.peak - idleRss)} on idle  ` +
            `(${run.rss.samples} samples)  others ${cores(run.otherCores)} cores`,
        )
      } else if (side === 'copies') {
        const run = await besideOthers(() => measureZip(forked, copiesUrl, dataset))
        copyZips.push(run)
        console.log(
          `  round ${round + 1} copies${mbPerSecond(run.bytes, run.totalMs).toFixed(0).padStart(5)} MB/s  ${seconds(run.totalMs)} s  ` +
            `first byte ${run.firstByteMs.toFixed(1)} ms  server CPU ${seconds(run.rss.cpuMs)} s  ` +
            `RSS peak ${mib(run.rss.peak)} MiB: ${signedMib(run.rss.growth)} on the run's start  others ${cores(run.otherCores)} cores`,
        )
      } else {
        const reader = side === 'read' ? 'stream' : 'pool'
        const run = await besideOthers(() => forked.call('baseline', { paths: dataset.paths, reader }))
        if (run.bytes !== dataset.fileBytes) throw new Broken(`the ${side} baseline read ${run.bytes} bytes, expected ${dataset.fileBytes}`)
        ;(side === 'read' ? reads : pooledReads).push(run)
        console.log(
          `  round ${round + 1} ${side.padEnd(6)}${mbPerSecond(run.bytes, run.ms).toFixed(0).padStart(5)} MB/s  ${seconds(run.ms)} s  ` +
            `server CPU ${seconds(run.rss.cpuMs)} s  RSS +${mib(run.rss.growth)} MiB  others ${cores(run.otherCores)} cores`,
        )
      }
      await sleep(PAUSE_MS)
    }
  }

  // The growth that counts: over the idle server's RSS, or over the run's own start if that is more.
  const growthOf = (run: ZipRun) => Math.max(run.rss.growth, run.rss.peak - idleRss)
  const zipRate = zips.map((run) => mbPerSecond(run.bytes, run.totalMs))
  const readRate = reads.map((run) => mbPerSecond(run.bytes, run.ms))
  const rows = zips.map((run, index) => {
    const read = reads[index]!
    return [
      String(index + 1),
      run.firstByteMs.toFixed(1),
      seconds(run.totalMs),
      seconds(read.ms),
      zipRate[index]!.toFixed(0),
      readRate[index]!.toFixed(0),
      (zipRate[index]! / readRate[index]!).toFixed(3),
      `${seconds(run.rss.cpuMs)} / ${seconds(read.rss.cpuMs)}`,
      mib(run.rss.before),
      mib(run.rss.peak),
      mib(run.rss.growth),
      mib(growthOf(run)),
      mib(read.rss.growth),
      `${cores(run.otherCores)} / ${cores(read.otherCores)}`,
    ]
  })
  const medians = {
    firstByteMs: median(zips.map((run) => run.firstByteMs)),
    zipMs: median(zips.map((run) => run.totalMs)),
    readMs: median(reads.map((run) => run.ms)),
    zipRate: median(zipRate),
    readRate: median(readRate),
    zipCpu: median(zips.map((run) => run.rss.cpuMs)),
    readCpu: median(reads.map((run) => run.rss.cpuMs)),
    before: median(zips.map((run) => run.rss.before)),
    peak: median(zips.map((run) => run.rss.peak)),
    growth: median(zips.map((run) => run.rss.growth)),
    counted: median(zips.map(growthOf)),
    readGrowth: median(reads.map((run) => run.rss.growth)),
  }
  const ratio = medians.zipRate / medians.readRate
  rows.push([
    'median',
    medians.firstByteMs.toFixed(1),
    seconds(medians.zipMs),
    seconds(medians.readMs),
    medians.zipRate.toFixed(0),
    medians.readRate.toFixed(0),
    ratio.toFixed(3),
    `${seconds(medians.zipCpu)} / ${seconds(medians.readCpu)}`,
    mib(medians.before),
    mib(medians.peak),
    mib(medians.growth),
    mib(medians.counted),
    mib(medians.readGrowth),
    '',
  ])
  console.log(
    `\nresults: ${zips[0]!.bytes} zip bytes, ${dataset.fileBytes} file bytes; idle server RSS ${mib(idleRss)} MiB ` +
      `(MB = 10^6 bytes, MiB = 2^20 bytes; CPU and RSS are the server process's)\n`,
  )
  printTable(
    [
      'run',
      'first byte ms',
      'zip s',
      'read s',
      'zip MB/s',
      'read MB/s',
      'ratio',
      'CPU s zip / read',
      'RSS before MiB',
      'RSS peak MiB',
      'zip growth on start MiB',
      'zip growth on idle MiB',
      'read growth on start MiB',
      'others cores zip / read',
    ],
    rows,
  )

  const worstGrowth = Math.max(...zips.map(growthOf))
  // Quick mode judges no figure: its lines say `info`, as its rows do.
  const said = (ok: boolean) => (QUICK ? 'info' : verdict(ok))
  console.log(`\ntargets (memory on the worst run, the others on the medians)${QUICK ? ', not judged in quick mode' : ''}:`)
  console.log(
    `  ${said(worstGrowth <= TARGET_RSS_GROWTH)}  peak RSS growth ${mib(worstGrowth)} MiB <= ${mib(TARGET_RSS_GROWTH)} MiB` +
      `  (median ${mib(medians.counted)} MiB; peak over the idle server's RSS, or over the run's start if more)`,
  )
  console.log(
    `  ${said(ratio >= TARGET_RATIO)}  throughput ratio ${ratio.toFixed(3)} >= ${TARGET_RATIO}` +
      `  (${medians.zipRate.toFixed(0)} / ${medians.readRate.toFixed(0)} MB/s; worst run ${Math.min(...zipRate.map((rate, index) => rate / readRate[index]!)).toFixed(3)}; ` +
      `by server CPU time ${(medians.readCpu / medians.zipCpu).toFixed(3)})`,
  )
  console.log(
    `  ${said(medians.firstByteMs <= TARGET_FIRST_BYTE_MS)}  first byte ${medians.firstByteMs.toFixed(1)} ms <= ${TARGET_FIRST_BYTE_MS} ms` +
      `  (worst ${Math.max(...zips.map((run) => run.firstByteMs)).toFixed(1)} ms)`,
  )
  // The zip of the full-size copies (photos `ready`: what a zip of a gallery sends today), against the same reads.
  const copyRate = copyZips.map((run) => mbPerSecond(run.bytes, run.totalMs))
  const copyRatio = median(copyRate) / medians.readRate
  const copyWorstRatio = Math.min(...copyRate.map((rate, index) => rate / readRate[index]!))
  const copyWorstGrowth = Math.max(...copyZips.map(growthOf))
  console.log(
    `  ${said(copyRatio >= TARGET_RATIO)}  full-size copies: throughput ratio ${copyRatio.toFixed(3)} >= ${TARGET_RATIO}` +
      `  (${median(copyRate).toFixed(0)} / ${medians.readRate.toFixed(0)} MB/s; worst run ${copyWorstRatio.toFixed(3)}; ` +
      `first byte ${median(copyZips.map((run) => run.firstByteMs)).toFixed(1)} ms; RSS growth ${mib(copyWorstGrowth)} MiB worst)`,
  )
  const pooledRate = median(pooledReads.map((run) => mbPerSecond(run.bytes, run.ms)))
  const sendRate = median(sends.map((run) => mbPerSecond(run.bytes, run.totalMs)))
  console.log('\ncontext (medians; not targets):')
  console.log(
    `  pooled read ${pooledRate.toFixed(0)} MB/s: the zip's own reader with nothing else to do; the zip is ${(medians.zipRate / pooledRate).toFixed(3)}× of it`,
  )
  console.log(
    `  send        ${sendRate.toFixed(0)} MB/s: the same files back to back over HTTP with that reader, not zipped; the zip is ${(medians.zipRate / sendRate).toFixed(3)}× of it`,
  )
  console.log(
    `\nload average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )

  const size = `${(dataset.fileBytes / 1e9).toFixed(2)} GB (${PHOTOS} × ${Number((PHOTO_BYTES / MiB).toFixed(2))} MiB)`
  const worstRatio = Math.min(...zipRate.map((rate, index) => rate / readRate[index]!))
  reportRows([
    {
      row: `zip of ${size}: throughput ÷ reading the files`,
      value: `${ratio.toFixed(3)}×`,
      figures:
        `medians of ${ROUNDS} rounds: zip ${medians.zipRate.toFixed(0)} MB/s, read ${medians.readRate.toFixed(0)} MB/s; worst round ${worstRatio.toFixed(3)}×; ` +
        `by server CPU time ${(medians.readCpu / medians.zipCpu).toFixed(3)}×; send (not zipped) ${sendRate.toFixed(0)} MB/s`,
      target: `≥ ${TARGET_RATIO}×`,
      result: verdict(ratio >= TARGET_RATIO),
    },
    {
      row: `zip of ${size}: server RSS growth (worst run)`,
      value: `${mib(worstGrowth)} MiB`,
      figures: `median ${mib(medians.counted)} MiB; idle server ${mib(idleRss)} MiB, peak ${mib(medians.peak)} MiB (median)`,
      target: `≤ ${mib(TARGET_RSS_GROWTH)} MiB`,
      result: verdict(worstGrowth <= TARGET_RSS_GROWTH),
    },
    {
      row: `zip of ${size}: first byte (median)`,
      value: `${medians.firstByteMs.toFixed(1)} ms`,
      figures: `worst ${Math.max(...zips.map((run) => run.firstByteMs)).toFixed(1)} ms; whole zip ${seconds(medians.zipMs)} s (median)`,
      target: `≤ ${TARGET_FIRST_BYTE_MS} ms`,
      result: verdict(medians.firstByteMs <= TARGET_FIRST_BYTE_MS),
    },
    {
      row: `zip of ${size} as full-size copies (photos \`ready\`): throughput ÷ reading the files`,
      value: `${copyRatio.toFixed(3)}×`,
      figures:
        `medians of ${ROUNDS} rounds: zip ${median(copyRate).toFixed(0)} MB/s, read ${medians.readRate.toFixed(0)} MB/s (the same files, linked under copies/); worst round ${copyWorstRatio.toFixed(3)}×; ` +
        `by server CPU time ${(medians.readCpu / median(copyZips.map((run) => run.rss.cpuMs))).toFixed(3)}×; first byte ${median(copyZips.map((run) => run.firstByteMs)).toFixed(1)} ms (median); ` +
        `RSS growth ${mib(copyWorstGrowth)} MiB (worst)`,
      target: `≥ ${TARGET_RATIO}×`,
      result: verdict(copyRatio >= TARGET_RATIO),
    },
  ])
}

// ---------------------------------------------------------------------------------------------

try {
  await main()
} catch (error) {
  process.exitCode = 1
  if (interrupted) {
    // Ctrl-C: the clean-up is under way, and the exit code will say so.
  } else if (error instanceof Broken) console.error(`\nABORTED: ${error.message}`)
  else console.error('\nbenchmark failed:', error)
} finally {
  await cleanUp()
}
