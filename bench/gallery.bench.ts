/**
 * Gallery read benchmark: our service (oRPC OpenAPIHandler in Express 5, MikroORM) against a
 * hand-written Express 5 + `pg` baseline answering the same two routes with the same SQL, the
 * same round trips and byte-for-byte the same JSON, from the same database.
 *
 *   pnpm bench                       # embedded PostgreSQL in a temp folder
 *   DATABASE_URL=postgres://… pnpm bench
 *   BENCH_DURATION=20 BENCH_ROUNDS=3 pnpm bench
 *
 * See bench/README.md for what is measured and the figures.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer as createHttpServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import { loadSettings, type Settings } from '@photobooth/server/config'
import { newId } from '@photobooth/server/ids'
import { createLogger } from '@photobooth/server/logger'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { GALLERY_QUERIES, SESSIONS_PER_SET } from '@photobooth/server/modules/gallery/gallery.queries'
import { startServer, type RunningServer } from '@photobooth/server/server'
import autocannon, { type Result } from 'autocannon'
import express, { type Request, type Response } from 'express'
import pg from 'pg'

import { cleanUp, envNumber, inTransaction, obtainDatabase, onCleanup } from './support.js'

// ---------------------------------------------------------------------------------------------
// Parameters

const TARGET_RATIO = 0.75
const SETS = 20
const LIVE_PER_SET = SESSIONS_PER_SET // 12: what the event page shows per set
const OLDER_LIVE_PER_SET = 5 // live too, but older than the 12 shown: the limit must cut them
const PHOTOS_PER_SESSION = 10
const GALLERY_PHOTOS = 20

const DURATION = envNumber('BENCH_DURATION', 10, 1) // seconds per measured run
const WARMUP = envNumber('BENCH_WARMUP', 3, 0) // seconds per target before measuring
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 2, 1)) // measured runs per target, alternating order
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10, 1))
// The load generator runs in worker threads so that it does not share the servers' event loop.
const WORKERS = Math.round(envNumber('BENCH_WORKERS', 1, 0))
const SETTLE_MS = 1_000 // pause after each load run

// ---------------------------------------------------------------------------------------------
// Clean-up (bench/support.ts), also on Ctrl-C

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // `on`, not `once`: tsx relays a second signal, and an unhandled one would kill the clean-up.
  process.on(signal, () => {
    console.error(`\n${signal}: stopping…`)
    void cleanUp().finally(() => process.exit(130))
  })
}

// ---------------------------------------------------------------------------------------------
// Seeding: the event and sets through the service, sessions and photos in bulk

type Seeded = {
  eventSlug: string
  eventIds: string[]
  /** Per set, the ids the event page must list, newest first. */
  expectedLive: Map<string, string[]>
  gallerySessionId: string
}

async function seed(running: RunningServer, pool: pg.Pool): Promise<Seeded> {
  const suffix = newId().slice(0, 8).toLowerCase().replace(/[^a-z0-9]/g, 'x')
  const eventSlug = `bench-event-${suffix}`
  const { event, sets } = await createEvent(running.orm.em.fork(), {
    slug: eventSlug,
    name: 'Benchmark Gala — 20 sets',
    startAt: new Date('2026-06-01T18:00:00Z'),
    isPrivate: false,
    sets: Array.from({ length: SETS }, (_, index) => ({ slug: `set-${index + 1}`, name: `Stage ${index + 1}` })),
  })
  const gallery = await createEvent(running.orm.em.fork(), {
    slug: `bench-gallery-${suffix}`,
    name: 'Benchmark Gallery Event',
    startAt: new Date('2026-07-04T20:30:00Z'),
    sets: [{ slug: 'booth', name: 'Booth' }],
  })
  const gallerySet = gallery.sets[0]
  if (!gallerySet) throw new Error('the gallery event has no set')

  const sessions = { id: [] as string[], setId: [] as string[], label: [] as string[], status: [] as string[], photoCount: [] as number[], createdAt: [] as string[] }
  const photos = { id: [] as string[], sessionId: [] as string[], position: [] as number[], storageKey: [] as string[], width: [] as number[], height: [] as number[] }
  const base = Date.parse('2026-06-01T18:00:00.000Z')
  let tick = 0
  // Distinct creation times, with milliseconds, so that order and epoch conversion are exercised.
  const nextTime = () => new Date(base + ++tick * 7_919 + (tick % 1000)).toISOString()
  const addSession = (setId: string, status: string, photoCount: number, label: string) => {
    const id = newId()
    sessions.id.push(id)
    sessions.setId.push(setId)
    sessions.label.push(label)
    sessions.status.push(status)
    sessions.photoCount.push(photoCount)
    sessions.createdAt.push(nextTime())
    for (let position = 1; position <= photoCount; position++) {
      photos.id.push(newId())
      photos.sessionId.push(id)
      photos.position.push(position)
      photos.storageKey.push(`sessions/${id}/${position}.jpg`)
      photos.width.push(1200 + position)
      photos.height.push(1800 + position)
    }
    return id
  }

  const expectedLive = new Map<string, string[]>()
  for (const [setIndex, set] of sets.entries()) {
    // Interleave the sets' creation times so that no set is entirely older than another.
    for (let older = 0; older < OLDER_LIVE_PER_SET; older++) addSession(set.id, 'completed', PHOTOS_PER_SESSION, `Old Guest ${setIndex}-${older}`)
    const live: string[] = []
    for (let index = 0; index < LIVE_PER_SET; index++) {
      live.push(addSession(set.id, 'completed', PHOTOS_PER_SESSION, `Zoë & Guest ${setIndex}-${index} "${index % 2 ? 'VIP' : 'crew'}"`))
    }
    expectedLive.set(set.id, live.reverse())
    // Newer sessions that are not live: the page must skip them.
    addSession(set.id, 'active', 0, `Waiting ${setIndex}`)
    addSession(set.id, 'cancelled', 0, `Gone ${setIndex}`)
  }
  const gallerySessionId = addSession(gallerySet.id, 'completed', GALLERY_PHOTOS, 'Ana María & Björn')

  await inTransaction(pool, async (client) => {
    await client.query(
      `insert into session (id, set_id, label, status, photo_count, created_at)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[])`,
      [sessions.id, sessions.setId, sessions.label, sessions.status, sessions.photoCount, sessions.createdAt],
    )
    await client.query(
      `insert into photo (id, session_id, position, storage_key, width, height, size_bytes)
       select id, session_id, position, storage_key, width, height, 1000
         from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[])
           as t (id, session_id, position, storage_key, width, height)`,
      [photos.id, photos.sessionId, photos.position, photos.storageKey, photos.width, photos.height],
    )
  })
  await pool.query('analyze event, event_set, session, photo')
  console.log(`seeded: ${SETS} sets × (${LIVE_PER_SET} live + ${OLDER_LIVE_PER_SET} older live + 2 not live) sessions, ` +
    `${photos.id.length} photos in all`)
  return { eventSlug, eventIds: [event.id, gallery.event.id], expectedLive, gallerySessionId }
}

// ---------------------------------------------------------------------------------------------
// The baseline: plain Express 5 + pg, the SQL of gallery.queries.ts

// The very statements of gallery.queries.ts, so that both sides ask PostgreSQL the same things.
const { eventWithSets: EVENT_SETS_SQL, liveSessions: LIVE_SESSIONS_SQL, gallery: GALLERY_SQL, photos: PHOTOS_SQL } = GALLERY_QUERIES

/** A `?` statement as pg takes it: numbered, an array value spread into a list, as knex does for the service. */
function positional(sql: string, params: unknown[]): [string, unknown[]] {
  const values: unknown[] = []
  let index = 0
  const text = sql.replace(/\?/g, () => {
    const value = params[index++]
    return Array.isArray(value) ? value.map((item) => `$${values.push(item)}`).join(', ') : `$${values.push(value)}`
  })
  return [text, values]
}

type PhotoOut = { id: string; url: string; width: number; height: number }

type Baseline = { url: string; server: Server; /** Requests whose handler has not finished yet. */ inFlight: () => number }

function startBaseline(pool: pg.Pool, cdnUrl: string): Promise<Baseline> {
  const photoUrl = (key: string) => `${cdnUrl}/${key.split('/').map(encodeURIComponent).join('/')}`

  async function photosBySession(sessionIds: string[]): Promise<Map<string, PhotoOut[]>> {
    const bySession = new Map<string, PhotoOut[]>()
    if (sessionIds.length === 0) return bySession
    const { rows } = await pool.query<{ id: string; session_id: string; storage_key: string; width: number; height: number }>(...positional(PHOTOS_SQL, [sessionIds]))
    for (const row of rows) {
      let list = bySession.get(row.session_id)
      if (!list) bySession.set(row.session_id, (list = []))
      list.push({ id: row.id, url: photoUrl(row.storage_key), width: row.width, height: row.height })
    }
    return bySession
  }

  const sendJson = (res: Response, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }

  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  // Counted only so that shutdown does not end the pool under a handler whose client has gone.
  let inFlight = 0
  const tracked =
    <P>(handler: (req: Request<P>, res: Response) => Promise<void>) =>
    async (req: Request<P>, res: Response) => {
      inFlight++
      try {
        await handler(req, res)
      } finally {
        inFlight--
      }
    }

  app.get('/gallery/events/:slug', tracked(async (req: Request<{ slug: string }>, res) => {
    const { rows: sets } = await pool.query<{
      id: string; slug: string; name: string; start_at: number; is_private: boolean; set_id: string | null; set_slug: string; set_name: string
    }>(...positional(EVENT_SETS_SQL, [req.params.slug]))
    const event = sets[0]
    if (!event || event.is_private) return sendJson(res, 404, { error: 'no such event' })
    const { rows: sessions } = await pool.query<{ id: string; set_id: string; label: string; created_at: number }>(...positional(LIVE_SESSIONS_SQL, [event.id]))
    const photos = await photosBySession(sessions.map((session) => session.id))
    const sessionsBySet = new Map<string, { id: string; label: string; createdAt: number; photos: PhotoOut[] }[]>()
    for (const session of sessions) {
      let list = sessionsBySet.get(session.set_id)
      if (!list) sessionsBySet.set(session.set_id, (list = []))
      list.push({ id: session.id, label: session.label, createdAt: session.created_at, photos: photos.get(session.id) ?? [] })
    }
    const setsOut: { id: string; slug: string; name: string; sessions: unknown[] }[] = []
    for (const row of sets) {
      if (row.set_id !== null) setsOut.push({ id: row.set_id, slug: row.set_slug, name: row.set_name, sessions: sessionsBySet.get(row.set_id) ?? [] })
    }
    sendJson(res, 200, { id: event.id, slug: event.slug, name: event.name, startAt: event.start_at, sets: setsOut })
  }))

  app.get('/gallery/:sessionId', tracked(async (req: Request<{ sessionId: string }>, res) => {
    const { rows } = await pool.query<{ id: string; label: string; event_id: string; event_slug: string; event_name: string; start_at: number }>(
      ...positional(GALLERY_SQL, [req.params.sessionId]),
    )
    const session = rows[0]
    if (!session) return sendJson(res, 404, { error: 'no such gallery' })
    const photos = await photosBySession([session.id])
    sendJson(res, 200, {
      id: session.id,
      label: session.label,
      event: { id: session.event_id, slug: session.event_slug, name: session.event_name, startAt: session.start_at },
      photos: photos.get(session.id) ?? [],
    })
  }))

  app.use((_req, res) => sendJson(res, 404, { error: 'Not Found' }))

  const server = createHttpServer(app)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      const { port } = server.address() as AddressInfo
      resolve({ url: `http://127.0.0.1:${port}`, server, inFlight: () => inFlight })
    })
  })
}

// ---------------------------------------------------------------------------------------------
// Equivalence: both servers must answer the same bytes before anything is measured

class Mismatch extends Error {}

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url)
  return { status: response.status, text: await response.text() }
}

async function assertSameAnswers(label: string, oursUrl: string, baselineUrl: string): Promise<string> {
  const [ours, baseline] = await Promise.all([get(oursUrl), get(baselineUrl)])
  if (ours.status !== baseline.status) {
    throw new Mismatch(`${label}: status differs, ours ${ours.status} vs baseline ${baseline.status}\n  ours: ${ours.text.slice(0, 300)}`)
  }
  const parse = (text: string, who: string) => {
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw new Mismatch(`${label}: ${who} did not answer JSON: ${text.slice(0, 300)}`)
    }
  }
  if (!isDeepStrictEqual(parse(ours.text, 'ours'), parse(baseline.text, 'baseline'))) {
    let at = 0
    while (at < ours.text.length && ours.text[at] === baseline.text[at]) at++
    throw new Mismatch(
      `${label}: bodies differ (first difference at character ${at})\n` +
        `  ours:     …${ours.text.slice(Math.max(0, at - 80), at + 120)}\n  baseline: …${baseline.text.slice(Math.max(0, at - 80), at + 120)}`,
    )
  }
  if (ours.text !== baseline.text) throw new Mismatch(`${label}: same JSON value but the strings differ (key order or spacing)`)
  return ours.text
}

function assertEventPage(text: string, seeded: Seeded): void {
  const page = JSON.parse(text) as { sets: { id: string; sessions: { id: string; photos: unknown[] }[] }[] }
  if (page.sets.length !== SETS) throw new Mismatch(`event page: ${page.sets.length} sets, expected ${SETS}`)
  for (const set of page.sets) {
    const ids = set.sessions.map((session) => session.id)
    if (!isDeepStrictEqual(ids, seeded.expectedLive.get(set.id))) throw new Mismatch(`event page: set ${set.id} does not list its latest ${LIVE_PER_SET} live sessions`)
    if (set.sessions.some((session) => session.photos.length !== PHOTOS_PER_SESSION)) throw new Mismatch(`event page: a session of set ${set.id} lacks photos`)
  }
}

// ---------------------------------------------------------------------------------------------
// Load

type Target = { name: 'ours' | 'baseline'; url: string }
type Measure = { requests: number; p50: number; p99: number; bytesPerSecond: number }

async function fire(url: string, seconds: number): Promise<Result> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    ...(WORKERS > 0 ? { workers: WORKERS } : {}),
  })
  // Requests cut off at the end are still being answered: let them finish before the next run.
  await sleep(SETTLE_MS)
  const problems = [
    result.errors ? `${result.errors} errors` : '',
    result.timeouts ? `${result.timeouts} timeouts` : '',
    result.non2xx ? `${result.non2xx} non-2xx answers` : '',
  ].filter(Boolean)
  if (problems.length > 0) throw new Error(`load on ${url} failed: ${problems.join(', ')}`)
  return result
}

async function measureRoute(route: string, targets: Target[]): Promise<Record<Target['name'], Measure[]>> {
  const measures: Record<Target['name'], Measure[]> = { ours: [], baseline: [] }
  if (WARMUP > 0) {
    for (const target of targets) {
      process.stdout.write(`  warm-up ${target.name.padEnd(8)} ${WARMUP}s\n`)
      await fire(target.url, WARMUP)
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    // ABBA…: the order alternates each round so that neither side always goes first.
    const order = round % 2 === 0 ? targets : [...targets].reverse()
    for (const target of order) {
      const result = await fire(target.url, DURATION)
      const measure = { requests: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bytesPerSecond: result.throughput.average }
      measures[target.name].push(measure)
      console.log(
        `  round ${round + 1} ${target.name.padEnd(8)} ${measure.requests.toFixed(1).padStart(9)} req/s  ` +
          `p50 ${measure.p50} ms  p99 ${measure.p99} ms  ${(measure.bytesPerSecond / 1e6).toFixed(1)} MB/s`,
      )
    }
  }
  return measures
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits (up to 5 s) until the condition holds. */
async function settle(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5_000; waited += 20) await sleep(20)
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`gallery benchmark: node ${process.version}, ${CONNECTIONS} connections, pipelining 1, ` +
    `warm-up ${WARMUP}s, ${ROUNDS} × ${DURATION}s per target, load generator in ${WORKERS > 0 ? `${WORKERS} worker thread(s)` : 'the main thread'}`)

  // Everything the run writes on disk (the embedded cluster, any local bucket) stays in here.
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await obtainDatabase(dataDir)
  const settings: Settings = {
    ...loadSettings({ MODE: 'development', DATA_DIR: dataDir }),
    databaseUrl,
    host: '127.0.0.1',
    port: 0,
    seedDemo: false,
  }
  const running = await startServer({ settings, logger: createLogger({ silent: true }) })
  onCleanup('our server', () => running.stop())
  const oursBase = `http://127.0.0.1:${running.config.port}`

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  onCleanup('baseline pool', () => pool.end())

  const seeded = await seed(running, pool)
  if (process.env.DATABASE_URL) {
    // Someone else's database: take the seeded rows away again (sets, sessions, photos cascade).
    onCleanup('seeded rows', async () => void (await pool.query('delete from event where id = any($1::text[])', [seeded.eventIds])))
  }

  const baseline = await startBaseline(pool, running.config.cdnUrl)
  onCleanup('baseline server', async () => {
    await new Promise<void>((resolve) => {
      baseline.server.close(() => resolve())
      baseline.server.closeIdleConnections()
    })
    await settle(() => baseline.inFlight() === 0)
  })

  const routes = [
    { route: 'GET /gallery/events/:slug', path: `/gallery/events/${seeded.eventSlug}` },
    { route: 'GET /gallery/:sessionId', path: `/gallery/${seeded.gallerySessionId}` },
  ]

  const eventPage = await assertSameAnswers('event page', oursBase + routes[0]!.path, baseline.url + routes[0]!.path)
  assertEventPage(eventPage, seeded)
  const gallery = await assertSameAnswers('gallery', oursBase + routes[1]!.path, baseline.url + routes[1]!.path)
  if ((JSON.parse(gallery) as { photos: unknown[] }).photos.length !== GALLERY_PHOTOS) throw new Mismatch(`gallery: expected ${GALLERY_PHOTOS} photos`)
  await assertSameAnswers('unknown event (404)', `${oursBase}/gallery/events/no-such-event`, `${baseline.url}/gallery/events/no-such-event`)
  await assertSameAnswers('unknown gallery (404)', `${oursBase}/gallery/${newId()}`, `${baseline.url}/gallery/${newId()}`)
  console.log(`identical answers: event page ${eventPage.length} bytes, gallery ${gallery.length} bytes, and both 404s`)

  const rows: { route: string; ours: Measure; baseline: Measure; ratio: number }[] = []
  for (const { route, path } of routes) {
    console.log(`\n${route}`)
    const measures = await measureRoute(route, [
      { name: 'baseline', url: baseline.url + path },
      { name: 'ours', url: oursBase + path },
    ])
    const average = (list: Measure[]): Measure => ({
      requests: mean(list.map((m) => m.requests)),
      p50: mean(list.map((m) => m.p50)),
      p99: mean(list.map((m) => m.p99)),
      bytesPerSecond: mean(list.map((m) => m.bytesPerSecond)),
    })
    const ours = average(measures.ours)
    const base = average(measures.baseline)
    rows.push({ route, ours, baseline: base, ratio: ours.requests / base.requests })
  }

  const header = ['route', 'ours req/s', 'baseline req/s', 'ratio', 'ours p50/p99 ms', 'baseline p50/p99 ms', `target >= ${TARGET_RATIO}`]
  const table = rows.map((row) => [
    row.route,
    row.ours.requests.toFixed(1),
    row.baseline.requests.toFixed(1),
    row.ratio.toFixed(3),
    `${row.ours.p50.toFixed(1)} / ${row.ours.p99.toFixed(1)}`,
    `${row.baseline.p50.toFixed(1)} / ${row.baseline.p99.toFixed(1)}`,
    row.ratio >= TARGET_RATIO ? 'PASS' : 'FAIL',
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => cells[column]!.length)))
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')
  console.log(`\nresults (mean of ${ROUNDS} × ${DURATION}s per target, ${CONNECTIONS} connections):\n`)
  console.log(line(header))
  console.log(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const cells of table) console.log(line(cells))
  const failed = rows.filter((row) => row.ratio < TARGET_RATIO)
  console.log(
    failed.length === 0
      ? `\nPASS: ours is at least ${TARGET_RATIO}× the baseline's req/s on every route.`
      : `\nFAIL: ours is below ${TARGET_RATIO}× the baseline's req/s on ${failed.map((row) => row.route).join(' and ')}.`,
  )
}

try {
  await main()
} catch (error) {
  process.exitCode = 1
  if (error instanceof Mismatch) console.error(`\nABORTED: the two servers do not answer the same.\n${error.message}`)
  else console.error('\nbenchmark failed:', error)
} finally {
  await cleanUp()
}
