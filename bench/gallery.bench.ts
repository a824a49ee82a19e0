/**
 * Gallery read benchmark: our service (oRPC OpenAPIHandler in Express 5, MikroORM) against a
 * hand-written Express 5 + `pg` baseline answering the same two routes with the same SQL, the
 * same round trips and byte-for-byte the same JSON, from the same database, and our answer to a
 * current `If-None-Match` (a 304) against the baseline's full 200. Then the guest's
 * server-rendered page `GET /g/<sessionId>` against our own JSON route for the same gallery, and
 * the page's weight before images (HTML + CSS + JS, as sent compressed to a browser).
 *
 *   pnpm bench:gallery               # embedded PostgreSQL in a temp folder (or: pnpm bench gallery)
 *   DATABASE_URL=postgres://… pnpm bench:gallery
 *   BENCH_DURATION=20 BENCH_ROUNDS=3 pnpm bench:gallery
 *
 * See bench/README.md for what is measured and the figures.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer as createHttpServer, get as httpGet, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'

import { GALLERY_PAGES_PATH } from '@photobooth/server/config'
import { newId } from '@photobooth/server/ids'
import { createLogger } from '@photobooth/server/logger'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { GALLERY_QUERIES, SESSIONS_PER_SET } from '@photobooth/server/modules/gallery/gallery.queries'
import { startServer, type RunningServer } from '@photobooth/server/server'
import express, { type Request, type Response } from 'express'
import pg from 'pg'

import { DURATION, CONNECTIONS, ROUNDS, loadSettingsLine, measureTargets, ratioRow } from './load.js'
import { reportRows, verdict, type Row } from './rows.js'
import {
  assertSameAnswers,
  benchSettings,
  Broken,
  cleanUpOnSignals,
  inTransaction,
  obtainDatabase,
  onCleanup,
  runBenchmark,
  sendJson,
  sleep,
} from './support.js'

// ---------------------------------------------------------------------------------------------
// Parameters

const GALLERY_TARGET_RATIO = 0.8 // ours ÷ the baseline, GET /gallery/:sessionId
const EVENT_TARGET_RATIO = 0.85 // ours ÷ the baseline, GET /gallery/events/:slug
const REVALIDATION_TARGET_RATIO = 2 // our 304 to a current If-None-Match ÷ the baseline's full 200
const PAGE_TARGET_RATIO = 0.7 // the gallery page ÷ our JSON route for the same gallery
const PAGE_TRANSFER_LIMIT = 30 * 1024 // bytes: the page's HTML + CSS + JS as sent compressed
const SETS = 20
const LIVE_PER_SET = SESSIONS_PER_SET // 12: what the event page shows per set
const OLDER_LIVE_PER_SET = 5 // live too, but older than the 12 shown: the limit must cut them
const PHOTOS_PER_SESSION = 10
const GALLERY_PHOTOS = 20

// ---------------------------------------------------------------------------------------------
// Clean-up (bench/support.ts), also on Ctrl-C

cleanUpOnSignals()

// ---------------------------------------------------------------------------------------------
// Seeding: the event and sets through the service, sessions and photos in bulk

type Seeded = {
  eventSlug: string
  eventIds: string[]
  /** Per set, the ids the event page must list, newest first. */
  expectedLive: Map<string, string[]>
  gallerySessionId: string
}

/** Positions of a session whose upload EXIF turned (orientation 6): recorded upright, as portraits. */
const TURNED_POSITIONS = new Set([3, 7])

/** The local bucket's ETag (local-storage.ts `etagOf`): inode, size and mtime in hex, quoted. */
const localEtag = (inode: number, size: number, mtimeMs: number) =>
  `"${inode.toString(16)}-${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`

/**
 * A 5184×3456 camera photo as the copies worker leaves its row (bench/copies.bench.ts made them):
 * the upload (~6.8 MB), its full-size copy (upright: the same bytes less the EXIF; turned: the
 * re-encode at 92, a little larger) and the display copies' sizes the worker records (WebP, long
 * side 480, 960, 1600, from a 2048 px intermediate).
 */
function cameraPhoto(position: number, completedAt: number, nextInode: () => number) {
  const turned = TURNED_POSITIONS.has(position % 10)
  const sizeBytes = 6_790_000 + position * 1_013
  const fullSize = turned ? 6_880_000 + position * 997 : sizeBytes - 468
  const copies = turned
    ? [
        { width: 320, height: 480 },
        { width: 640, height: 960 },
        { width: 1066, height: 1600 },
      ]
    : [
        { width: 480, height: 320 },
        { width: 960, height: 640 },
        { width: 1600, height: 1066 },
      ]
  return {
    width: turned ? 3456 : 5184,
    height: turned ? 5184 : 3456,
    sizeBytes,
    etag: localEtag(nextInode(), sizeBytes, completedAt - 20_000),
    fullSize,
    fullEtag: localEtag(nextInode(), fullSize, completedAt + 3_000),
    copies,
  }
}

async function seed(running: RunningServer, pool: pg.Pool): Promise<Seeded> {
  const suffix = newId()
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')
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

  const sessions = {
    id: [] as string[],
    setId: [] as string[],
    label: [] as string[],
    status: [] as string[],
    photoCount: [] as number[],
    createdAt: [] as string[],
    completedAt: [] as (string | null)[],
    readyAt: [] as (string | null)[],
  }
  const photos = {
    id: [] as string[],
    sessionId: [] as string[],
    position: [] as number[],
    storageKey: [] as string[],
    width: [] as number[],
    height: [] as number[],
    sizeBytes: [] as number[],
    etag: [] as string[],
    fullSize: [] as number[],
    fullEtag: [] as string[],
    copies: [] as string[],
    preview: [] as boolean[],
  }
  const base = Date.parse('2026-06-01T18:00:00.000Z')
  let tick = 0
  let inode = 0x4a000
  // Distinct creation times, with milliseconds, so that order and epoch conversion are exercised.
  const nextTime = () => base + ++tick * 7_919 + (tick % 1000)
  const addSession = (setId: string, status: string, photoCount: number, label: string) => {
    const id = newId()
    const createdAt = nextTime()
    const live = status === 'completed'
    sessions.id.push(id)
    sessions.setId.push(setId)
    sessions.label.push(label)
    sessions.status.push(status)
    sessions.photoCount.push(photoCount)
    sessions.createdAt.push(new Date(createdAt).toISOString())
    // Completed a minute and a half after registration; every copy made 6 s later (bench/copies.bench.ts).
    sessions.completedAt.push(live ? new Date(createdAt + 90_000).toISOString() : null)
    sessions.readyAt.push(live ? new Date(createdAt + 96_000).toISOString() : null)
    for (let position = 1; position <= photoCount; position++) {
      const photo = cameraPhoto(position, createdAt + 90_000, () => ++inode)
      photos.id.push(newId())
      photos.sessionId.push(id)
      photos.position.push(position)
      photos.storageKey.push(`sessions/${id}/${newId()}.jpg`)
      photos.width.push(photo.width)
      photos.height.push(photo.height)
      photos.sizeBytes.push(photo.sizeBytes)
      photos.etag.push(photo.etag)
      photos.fullSize.push(photo.fullSize)
      photos.fullEtag.push(photo.fullEtag)
      photos.copies.push(JSON.stringify(photo.copies))
      photos.preview.push(position === 1)
    }
    return id
  }

  const expectedLive = new Map<string, string[]>()
  for (const [setIndex, set] of sets.entries()) {
    // Interleave the sets' creation times so that no set is entirely older than another.
    for (let older = 0; older < OLDER_LIVE_PER_SET; older++)
      addSession(set.id, 'completed', PHOTOS_PER_SESSION, `Old Guest ${setIndex}-${older}`)
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
      `insert into session (id, set_id, label, status, photo_count, created_at, completed_at, images_settled, images_ready_at)
       select id, set_id, label, status, photo_count, created_at, completed_at, case when images_ready_at is null then 0 else photo_count end, images_ready_at
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[])
           as t (id, set_id, label, status, photo_count, created_at, completed_at, images_ready_at)`,
      [
        sessions.id,
        sessions.setId,
        sessions.label,
        sessions.status,
        sessions.photoCount,
        sessions.createdAt,
        sessions.completedAt,
        sessions.readyAt,
      ],
    )
    // As the copies worker leaves them: ready, with the full-size copy and three display copies.
    await client.query(
      `insert into photo (id, session_id, position, storage_key, width, height, size_bytes, etag, image_status, image_attempts, full_size, full_etag, copies, preview)
       select id, session_id, position, storage_key, width, height, size_bytes, etag, 'ready', 1, full_size, full_etag, copies, preview
         from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[], $9::int[], $10::text[], $11::jsonb[], $12::bool[])
           as t (id, session_id, position, storage_key, width, height, size_bytes, etag, full_size, full_etag, copies, preview)`,
      [
        photos.id,
        photos.sessionId,
        photos.position,
        photos.storageKey,
        photos.width,
        photos.height,
        photos.sizeBytes,
        photos.etag,
        photos.fullSize,
        photos.fullEtag,
        photos.copies,
        photos.preview,
      ],
    )
  })
  await pool.query('analyze event, event_set, session, photo')
  console.log(
    `seeded: ${SETS} sets × (${LIVE_PER_SET} live + ${OLDER_LIVE_PER_SET} older live + 2 not live) sessions, ` +
      `${photos.id.length} photos in all, as the copies worker leaves them (ready: a full-size copy, three display copies, the first one's link preview)`,
  )
  return { eventSlug, eventIds: [event.id, gallery.event.id], expectedLive, gallerySessionId }
}

// ---------------------------------------------------------------------------------------------
// The baseline: plain Express 5 + pg, the SQL of gallery.queries.ts

// The very statements of gallery.queries.ts, so that both sides ask PostgreSQL the same things.
const [EVENT_SETS_SQL, LIVE_SESSIONS_SQL, GALLERY_SQL, PHOTOS_SQL] = [
  GALLERY_QUERIES.eventWithSets.sql,
  GALLERY_QUERIES.liveSessions.sql,
  GALLERY_QUERIES.gallery.sql,
  GALLERY_QUERIES.photos.sql,
]

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

type CopyOut = { url: string; width: number; height: number; type: 'image/webp' }
type PhotoOut = { id: string; url: string; width: number; height: number; copies?: CopyOut[] }
type PreviewOut = { url: string; width: number; height: number; type: 'image/jpeg' }
type PhotoRow = {
  id: string
  session_id: string
  storage_key: string
  width: number
  height: number
  image_status: string
  copies: { width: number; height: number }[] | null
  preview: boolean
}

type Baseline = { url: string; server: Server; /** Requests whose handler has not finished yet. */ inFlight: () => number }

function startBaseline(pool: pg.Pool, cdnUrl: string): Promise<Baseline> {
  // A key as stored (a legacy photo's upload) is URL-encoded segment by segment; the copies' keys
  // are made of ids, which need no encoding.
  const storedUrl = (key: string) => `${cdnUrl}/${key.split('/').map(encodeURIComponent).join('/')}`
  const copiesUrl = (sessionId: string) => `${cdnUrl}/sessions/${sessionId}/copies/`

  async function photosBySession(sessionIds: string[]): Promise<{ photos: Map<string, PhotoOut[]>; previews: Map<string, PreviewOut> }> {
    const photos = new Map<string, PhotoOut[]>()
    const previews = new Map<string, PreviewOut>()
    if (sessionIds.length === 0) return { photos, previews }
    const { rows } = await pool.query<PhotoRow>(...positional(PHOTOS_SQL, [sessionIds]))
    for (const row of rows) {
      let list = photos.get(row.session_id)
      if (!list) {
        photos.set(row.session_id, (list = []))
        // The link preview, made from the session's first photo.
        if (row.preview)
          previews.set(row.session_id, { url: `${copiesUrl(row.session_id)}preview.jpg`, width: 1200, height: 630, type: 'image/jpeg' })
      }
      const copies = copiesUrl(row.session_id)
      const photo: PhotoOut = {
        id: row.id,
        url: row.image_status === 'legacy' ? storedUrl(row.storage_key) : `${copies}${row.id}.jpg`,
        width: row.width,
        height: row.height,
      }
      if (row.copies) {
        photo.copies = row.copies.map((copy) => ({
          url: `${copies}${row.id}-${copy.width}.webp`,
          width: copy.width,
          height: copy.height,
          type: 'image/webp',
        }))
      }
      list.push(photo)
    }
    return { photos, previews }
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

  app.get(
    '/gallery/events/:slug',
    tracked(async (req: Request<{ slug: string }>, res) => {
      const { rows: sets } = await pool.query<{
        id: string
        slug: string
        name: string
        start_at: number
        is_private: boolean
        set_id: string | null
        set_slug: string
        set_name: string
      }>(...positional(EVENT_SETS_SQL, [req.params.slug]))
      const event = sets[0]
      if (!event || event.is_private) return sendJson(res, 404, { error: 'no such event', code: 'no_such_event' })
      const { rows: sessions } = await pool.query<{ id: string; set_id: string; label: string; created_at: number; created_us: number }>(
        ...positional(LIVE_SESSIONS_SQL, [event.id]),
      )
      const { photos, previews } = await photosBySession(sessions.map((session) => session.id))
      const sessionsBySet = new Map<string, { id: string; label: string; createdAt: number; photos: PhotoOut[]; preview?: PreviewOut }[]>()
      for (const session of sessions) {
        let list = sessionsBySet.get(session.set_id)
        if (!list) sessionsBySet.set(session.set_id, (list = []))
        const preview = previews.get(session.id)
        list.push({
          id: session.id,
          label: session.label,
          createdAt: session.created_at,
          photos: photos.get(session.id) ?? [],
          ...(preview && { preview }),
        })
      }
      // A page of SESSIONS_PER_SET; the query reads one more, whose presence gives the set its cursor.
      const setsOut: { id: string; slug: string; name: string; sessions: unknown[]; nextCursor?: string }[] = []
      for (const row of sets) {
        if (row.set_id === null) continue
        const listed = sessionsBySet.get(row.set_id) ?? []
        const last = sessions.filter((session) => session.set_id === row.set_id)[SESSIONS_PER_SET - 1]
        setsOut.push({
          id: row.set_id,
          slug: row.set_slug,
          name: row.set_name,
          sessions: listed.slice(0, SESSIONS_PER_SET),
          ...(listed.length > SESSIONS_PER_SET &&
            last && { nextCursor: Buffer.from(JSON.stringify([row.set_id, last.created_us, last.id])).toString('base64url') }),
        })
      }
      sendJson(res, 200, { id: event.id, slug: event.slug, name: event.name, startAt: event.start_at, sets: setsOut })
    }),
  )

  app.get(
    '/gallery/:sessionId',
    tracked(async (req: Request<{ sessionId: string }>, res) => {
      const { rows } = await pool.query<{
        id: string
        label: string
        event_id: string
        event_slug: string
        event_name: string
        start_at: number
      }>(...positional(GALLERY_SQL, [req.params.sessionId]))
      const session = rows[0]
      if (!session) return sendJson(res, 404, { error: 'no such gallery', code: 'no_such_gallery' })
      const { photos, previews } = await photosBySession([session.id])
      const preview = previews.get(session.id)
      sendJson(res, 200, {
        id: session.id,
        label: session.label,
        event: { id: session.event_id, slug: session.event_slug, name: session.event_name, startAt: session.start_at },
        photos: photos.get(session.id) ?? [],
        ...(preview && { preview }),
      })
    }),
  )

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
// Equivalence: both servers must answer the same bytes before anything is measured (assertSameAnswers)

/** The event page lists every set's latest live sessions, each with its photos. */
function assertEventPage(text: string, seeded: Seeded): void {
  const page = JSON.parse(text) as { sets: { id: string; sessions: { id: string; photos: unknown[] }[] }[] }
  if (page.sets.length !== SETS) throw new Broken(`event page: ${page.sets.length} sets, expected ${SETS}`)
  for (const set of page.sets) {
    const ids = set.sessions.map((session) => session.id)
    if (!isDeepStrictEqual(ids, seeded.expectedLive.get(set.id)))
      throw new Broken(`event page: set ${set.id} does not list its latest ${LIVE_PER_SET} live sessions`)
    if (set.sessions.some((session) => session.photos.length !== PHOTOS_PER_SESSION))
      throw new Broken(`event page: a session of set ${set.id} lacks photos`)
  }
}

// ---------------------------------------------------------------------------------------------
// The guest's page: GET /g/<sessionId>, checked, then weighed as a browser receives it

/** What a browser sends for a page. The compression of the answer is part of what a guest gets. */
const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
const BROWSER_ENCODINGS = 'gzip, deflate, br'

type RawAnswer = {
  status: number
  headers: IncomingHttpHeaders
  /** The body as it came over the wire: still compressed, the chunked framing removed. */
  raw: Buffer
  /** The body decoded according to its Content-Encoding. */
  text: string
}

/** GET with `node:http`, which (unlike fetch) leaves the body as sent: its bytes are what the wire carried. */
function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        try {
          const raw = Buffer.concat(chunks)
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            raw,
            text: decode(raw, res.headers['content-encoding']).toString('utf8'),
          })
        } catch (error) {
          reject(new Broken(`${url}: the body does not decode as its Content-Encoding says: ${String(error)}`))
        }
      })
    }).on('error', reject)
  })
}

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  switch (encoding ?? 'identity') {
    case 'identity':
      return raw
    case 'br':
      return brotliDecompressSync(raw)
    case 'gzip':
      return gunzipSync(raw)
    case 'deflate':
      return inflateSync(raw)
    default:
      throw new Broken(`unexpected Content-Encoding ${encoding}`)
  }
}

/** The status, the type, and a Content-Length (when sent) that matches the bytes counted. */
function expectAnswer(label: string, answer: RawAnswer, status: number, type: RegExp): void {
  const contentType = answer.headers['content-type'] ?? ''
  if (answer.status !== status || !type.test(contentType)) {
    throw new Broken(`${label}: ${answer.status} ${contentType}, expected ${status} ${type.source}\n  ${answer.text.slice(0, 300)}`)
  }
  const length = answer.headers['content-length']
  if (length !== undefined && Number(length) !== answer.raw.length) {
    throw new Broken(`${label}: Content-Length ${length} but ${answer.raw.length} bytes received`)
  }
}

const unescapeHtml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!)

type PageFile = { kind: 'HTML' | 'CSS' | 'JS'; path: string; encoding: string; bytes: number; decodedBytes: number }

/**
 * Checks the page (as a browser asks for it and without compression) and weighs it before images:
 * the HTML, then every stylesheet and script it names, fetched as a browser would, bodies counted as sent.
 */
type GalleryPhoto = { url: string; copies?: { url: string; width: number }[] }

async function checkAndWeighPage(pageUrl: string, unknownUrl: string, galleryPhotos: GalleryPhoto[]): Promise<PageFile[]> {
  const browser = { accept: PAGE_ACCEPT, 'accept-encoding': BROWSER_ENCODINGS }
  const page = await rawGet(pageUrl, browser)
  expectAnswer('gallery page', page, 200, /^text\/html\b/)
  const html = page.text
  if (!/<body\b[^>]*\sdata-page="gallery"/.test(html))
    throw new Broken(`gallery page: the body is not data-page="gallery"\n  ${html.slice(0, 300)}`)
  const imageTags = [...html.matchAll(/<img\b[^>]*>/g)].map((match) => match[0])
  const attribute = (tag: string, name: string) => {
    const value = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]
    return value === undefined ? undefined : unescapeHtml(value)
  }
  // The viewer's own <img> is the page's one image that is not a photo.
  const photos = imageTags.filter((tag) => attribute(tag, 'class') !== 'viewer-image')
  if (photos.length !== GALLERY_PHOTOS)
    throw new Broken(`gallery page: ${photos.length} photo <img> (${imageTags.length} in all), expected ${GALLERY_PHOTOS}`)
  // Each photo: its second display copy as `src`, every copy in `srcset`, and its link the largest copy (never the full-size photo).
  const shown = photos.map((tag) => ({ src: attribute(tag, 'src'), srcset: attribute(tag, 'srcset') }))
  const expected = galleryPhotos.map((photo) => {
    const copies = photo.copies ?? []
    return { src: copies[Math.min(1, copies.length - 1)]?.url, srcset: copies.map((copy) => `${copy.url} ${copy.width}w`).join(', ') }
  })
  if (!isDeepStrictEqual(shown, expected)) {
    throw new Broken(
      `gallery page: its images are not the JSON route's photos' copies, in order\n  page: ${JSON.stringify(shown[0])}\n  JSON: ${JSON.stringify(expected[0])}`,
    )
  }
  const links = [...html.matchAll(/<a\b[^>]*\sclass="photo-open"[^>]*>/g)].map((match) => attribute(match[0], 'href'))
  if (
    !isDeepStrictEqual(
      links,
      galleryPhotos.map((photo) => photo.copies?.at(-1)?.url),
    )
  )
    throw new Broken(
      `gallery page: its photos do not link to the JSON route's largest copies\n  page: ${links[0]}\n  JSON: ${galleryPhotos[0]?.copies?.at(-1)?.url}`,
    )

  // Without Accept-Encoding: the same page, not compressed (the third load target relies on it).
  const plain = await rawGet(pageUrl, { accept: PAGE_ACCEPT })
  expectAnswer('gallery page without Accept-Encoding', plain, 200, /^text\/html\b/)
  if (plain.headers['content-encoding'] !== undefined)
    throw new Broken(`gallery page without Accept-Encoding: answered ${plain.headers['content-encoding']}`)
  if (plain.text !== html) throw new Broken('gallery page: the compressed answer does not decode to the uncompressed one')

  const missing = await rawGet(unknownUrl, browser)
  expectAnswer('unknown gallery page', missing, 404, /^text\/html\b/)
  if (!/<body\b[^>]*\sdata-page="missing"/.test(missing.text)) throw new Broken('unknown gallery page: not the "missing" page')

  const files: PageFile[] = [
    {
      kind: 'HTML',
      path: new URL(pageUrl).pathname,
      encoding: page.headers['content-encoding'] ?? 'identity',
      bytes: page.raw.length,
      decodedBytes: Buffer.byteLength(html),
    },
  ]
  const linked = [
    ...[...html.matchAll(/<link\b[^>]*>/g)]
      .filter((match) => /\srel="stylesheet"/.test(match[0]))
      .map((match) => ({
        kind: 'CSS' as const,
        href: /\shref="([^"]+)"/.exec(match[0])?.[1],
        accept: 'text/css,*/*;q=0.1',
        type: /^text\/css\b/,
      })),
    ...[...html.matchAll(/<script\b[^>]*>/g)].map((match) => ({
      kind: 'JS' as const,
      href: /\ssrc="([^"]+)"/.exec(match[0])?.[1],
      accept: '*/*',
      type: /^(text|application)\/javascript\b/,
    })),
  ]
  for (const kind of ['CSS', 'JS'] as const) {
    if (!linked.some((file) => file.kind === kind && file.href !== undefined)) throw new Broken(`gallery page: it names no ${kind} file`)
  }
  for (const { kind, href, accept, type } of linked) {
    // An inline <script> costs nothing more: its bytes are in the HTML.
    if (href === undefined) continue
    const url = new URL(unescapeHtml(href), pageUrl)
    const answer = await rawGet(url.href, { accept, 'accept-encoding': BROWSER_ENCODINGS })
    expectAnswer(`${kind} ${url.pathname}`, answer, 200, type)
    files.push({
      kind,
      path: url.pathname,
      encoding: answer.headers['content-encoding'] ?? 'identity',
      bytes: answer.raw.length,
      decodedBytes: Buffer.byteLength(answer.text),
    })
  }
  return files
}

/** Our 200's ETag, sent back as `If-None-Match`, must get a 304 with the same ETag and no body. */
async function checkRevalidation(url: string): Promise<string> {
  const first = await fetch(url)
  await first.arrayBuffer()
  const etag = first.headers.get('etag')
  if (first.status !== 200 || !etag) throw new Broken(`${url}: ${first.status} without an ETag`)
  const again = await fetch(url, { headers: { 'if-none-match': etag } })
  const body = await again.text()
  if (again.status !== 304 || again.headers.get('etag') !== etag || body !== '') {
    throw new Broken(
      `${url} with If-None-Match ${etag}: ${again.status}, ETag ${again.headers.get('etag')}, ${body.length} body characters; expected 304, the same ETag, no body`,
    )
  }
  return etag
}

// ---------------------------------------------------------------------------------------------
// Load (bench/load.ts) and the table (bench/rows.ts)

/** Waits (up to 5 s) until the condition holds. */
async function settle(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5_000; waited += 20) await sleep(20)
}

const bytes = (n: number) => `${n.toLocaleString('en-US')} B`

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`gallery benchmark: node ${process.version}, ${loadSettingsLine()}`)

  // Everything the run writes on disk (the embedded cluster, any local bucket) stays in here.
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await obtainDatabase(dataDir)
  const settings = benchSettings(dataDir, databaseUrl)
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

  const eventPath = `/gallery/events/${seeded.eventSlug}`
  const galleryPath = `/gallery/${seeded.gallerySessionId}`
  const pagePath = `${GALLERY_PAGES_PATH}/${seeded.gallerySessionId}`

  const eventPage = await assertSameAnswers('event page', oursBase + eventPath, baseline.url + eventPath)
  assertEventPage(eventPage, seeded)
  const gallery = await assertSameAnswers('gallery', oursBase + galleryPath, baseline.url + galleryPath)
  const galleryPhotos = (JSON.parse(gallery) as { photos: GalleryPhoto[] }).photos
  if (galleryPhotos.length !== GALLERY_PHOTOS) throw new Broken(`gallery: expected ${GALLERY_PHOTOS} photos`)
  if (galleryPhotos.some((photo) => photo.copies?.length !== 3)) throw new Broken('gallery: a photo without its three display copies')
  await assertSameAnswers('unknown event (404)', `${oursBase}/gallery/events/no-such-event`, `${baseline.url}/gallery/events/no-such-event`)
  await assertSameAnswers('unknown gallery (404)', `${oursBase}/gallery/${newId()}`, `${baseline.url}/gallery/${newId()}`)
  console.log(`identical answers: event page ${eventPage.length} bytes, gallery ${gallery.length} bytes, and both 404s`)

  const files = await checkAndWeighPage(oursBase + pagePath, `${oursBase}${GALLERY_PAGES_PATH}/${newId()}`, galleryPhotos)
  const transfer = files.reduce((sum, file) => sum + file.bytes, 0)
  console.log(`gallery page (${GALLERY_PHOTOS} photos), bodies as sent for Accept-Encoding: ${BROWSER_ENCODINGS}:`)
  for (const file of files)
    console.log(`  ${file.kind.padEnd(4)} ${file.path}  ${bytes(file.bytes)} ${file.encoding} (${bytes(file.decodedBytes)} decoded)`)
  console.log(`  total ${bytes(transfer)}`)

  // The revalidation: a current ETag must be answered 304, without a body, on both routes.
  const etags = new Map<string, string>()
  for (const path of [galleryPath, eventPath]) etags.set(path, await checkRevalidation(oursBase + path))
  console.log(`304 to a current If-None-Match on both routes, without a body`)

  const rows: Row[] = []
  for (const { route, path, target } of [
    { route: 'GET /gallery/:sessionId', path: galleryPath, target: GALLERY_TARGET_RATIO },
    { route: 'GET /gallery/events/:slug', path: eventPath, target: EVENT_TARGET_RATIO },
  ]) {
    console.log(`\n${route}: ours, ours answering If-None-Match (304), and the baseline (200)`)
    const measures = await measureTargets([
      { name: 'baseline', url: baseline.url + path },
      { name: 'ours', url: oursBase + path },
      { name: 'ours 304', url: oursBase + path, headers: { 'if-none-match': etags.get(path)! }, status: 304 },
    ])
    const base = { label: 'baseline 200', measure: measures.get('baseline')! }
    rows.push(
      ratioRow(
        `\`${route}\`: ours ÷ baseline`,
        { label: 'ours', measure: measures.get('ours')! },
        { label: 'baseline', measure: base.measure },
        target,
      ),
      ratioRow(
        `\`${route}\` with \`If-None-Match\`: ours 304 ÷ baseline 200`,
        { label: 'ours 304', measure: measures.get('ours 304')! },
        base,
        REVALIDATION_TARGET_RATIO,
      ),
    )
  }

  console.log(`\nGET ${GALLERY_PAGES_PATH}/:sessionId (the page) and GET /gallery/:sessionId (the JSON route), both ours`)
  const page = await measureTargets([
    { name: 'json', url: oursBase + galleryPath },
    { name: 'page', url: oursBase + pagePath, headers: { accept: PAGE_ACCEPT, 'accept-encoding': BROWSER_ENCODINGS } },
    { name: 'page, not compressed', url: oursBase + pagePath, headers: { accept: PAGE_ACCEPT } },
  ])
  const json = { label: 'JSON', measure: page.get('json')! }
  const html = files[0]!
  rows.push(
    ratioRow(
      `\`GET ${GALLERY_PAGES_PATH}/:sessionId\` page (${html.encoding}) ÷ \`GET /gallery/:sessionId\``,
      { label: 'page', measure: page.get('page')! },
      json,
      PAGE_TARGET_RATIO,
    ),
    ratioRow(
      `\`GET ${GALLERY_PAGES_PATH}/:sessionId\` page (no Accept-Encoding) ÷ \`GET /gallery/:sessionId\``,
      { label: 'page', measure: page.get('page, not compressed')! },
      json,
    ),
    {
      row: `\`GET ${GALLERY_PAGES_PATH}/:sessionId\` transfer before images (${GALLERY_PHOTOS} photos)`,
      value: bytes(transfer),
      figures: files.map((file) => `${file.kind} ${bytes(file.bytes)} ${file.encoding} (${bytes(file.decodedBytes)} decoded)`).join(' + '),
      target: `< ${bytes(PAGE_TRANSFER_LIMIT)}`,
      result: verdict(transfer < PAGE_TRANSFER_LIMIT),
    },
  )

  console.log(`\nresults (mean of ${ROUNDS} × ${DURATION}s per target, ${CONNECTIONS} connections):`)
  reportRows(rows)
}

await runBenchmark(main)
