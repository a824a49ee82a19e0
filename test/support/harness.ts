import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { loadSettings, type Settings } from '@photobooth/server/config'
import type { Orm } from '@photobooth/server/db/orm'
import { newId } from '@photobooth/server/ids'
import { createLogger, type Logger } from '@photobooth/server/logger'
import { createBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { COPIES_QUERIES } from '@photobooth/server/modules/photos/photo-copies.queries'
import { startServer, type RunningServer } from '@photobooth/server/server'
import { afterAll, beforeAll, expect } from 'vitest'
import { testDatabaseUrl } from './database-url.js'

export type TestServer = RunningServer & {
  /** SQL statements sent since the last `queries.length = 0`, but the copies worker's polls. */
  queries: string[]
  /** Resolves once `count` more statements matching `pattern` have been sent from now on; fails after `ms`. */
  sent(pattern: RegExp, count: number, ms?: number): Promise<void>
}

/**
 * One local bucket for the servers of a test file that are running at once, as the instances of a
 * deployment share one: any server's copies worker can then make the copies of another's photos
 * (they share the database too). Removed when the last of them stops.
 */
let shared: { root: Promise<string>; servers: number } | undefined

function shareBucket(): Promise<string> {
  shared ??= { root: mkdtemp(join(tmpdir(), 'photobooth-bucket-')), servers: 0 }
  shared.servers++
  return shared.root
}

async function leaveBucket(): Promise<void> {
  if (!shared || --shared.servers > 0) return
  const { root } = shared
  shared = undefined
  await rm(await root, { recursive: true, force: true })
}

/**
 * The real service on an ephemeral port against the run's PostgreSQL, with the file's local bucket
 * in a temporary folder (shareBucket) unless the test chooses another storage. A test whose server
 * has another storage and completes sessions gives it a database of its own (scratchDatabases):
 * another server's copies worker could not read its photos.
 */
/** The copies worker's claim, up to its first parameter: how every statement of its polls begins. */
const COPIES_CLAIM = COPIES_QUERIES.claim.sql.slice(0, COPIES_QUERIES.claim.sql.indexOf('?'))

export async function startTestServer(
  overrides: Partial<Settings> = {},
  options: { now?: () => Date; logger?: Logger } = {},
): Promise<TestServer> {
  const queries: string[] = []
  const watchers = new Set<(sql: string) => void>()
  const bucket = await shareBucket()
  const defaults = loadSettings({ MODE: 'development' })
  const settings: Settings = {
    ...defaults,
    // Tests that are about delivery turn the dispatcher on; elsewhere outbox rows stay as written.
    delivery: { ...defaults.delivery, dispatch: false },
    // The tests' events started months ago: the purge, on by default, would take their sessions.
    retention: { ...defaults.retention, work: false },
    databaseUrl: testDatabaseUrl(),
    host: '127.0.0.1',
    port: 0,
    seedDemo: false,
    storage: { kind: 'local', root: bucket, secret: randomBytes(32).toString('base64url') },
    staffAuth: { secret: randomBytes(32).toString('base64url'), trustedOrigins: [] },
    ...overrides,
  }
  const onQuery = (sql: string) => {
    // The copies worker's claim is a poll of its own, every few seconds: it would land among any
    // request's statements that a test counts.
    if (!sql.startsWith(COPIES_CLAIM)) queries.push(sql)
    watchers.forEach((watch) => watch(sql))
  }
  const running = await startServer({ settings, logger: options.logger ?? createLogger({ silent: true }), onQuery, now: options.now })
  const stop = running.stop
  const sent = (pattern: RegExp, count: number, ms = 10_000) =>
    new Promise<void>((resolve, reject) => {
      let seen = 0
      const watch = (sql: string) => {
        if (!pattern.test(sql) || ++seen < count) return
        watchers.delete(watch)
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        watchers.delete(watch)
        reject(new Error(`${seen} of ${count} statements matching ${pattern} were sent within ${ms} ms`))
      }, ms)
      watchers.add(watch)
    })
  return Object.assign(running, {
    queries,
    sent,
    stop: async () => {
      await stop()
      await leaveBucket()
    },
  })
}

/**
 * The test file's server: started before its tests (before the file's own `beforeAll`s that follow
 * this call), stopped after them. Read it inside hooks and tests; before it has started, any use
 * throws.
 */
export function withTestServer(overrides: Partial<Settings> = {}, options: { now?: () => Date; logger?: Logger } = {}): TestServer {
  let running: TestServer | undefined
  beforeAll(async () => {
    running = await startTestServer(overrides, options)
  })
  afterAll(() => running?.stop())
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (!running) throw new Error(`the test server is not running yet (reading ${String(property)})`)
      const value = Reflect.get(running, property, running) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(running) : value
    },
  })
}

/** A booth key for this server's database, whole, as the admin command prints it. */
export async function createTestBoothKey(app: RunningServer, name = 'Test booth'): Promise<string> {
  return (await createBoothKey(app.orm.em.fork(), name)).key
}

/** A slug no other test uses. */
export function uniqueSlug(prefix = 'event'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`
}

export async function seedEvent(orm: Orm, options: { sets?: number; isPrivate?: boolean; startAt?: Date } = {}) {
  const setCount = options.sets ?? 1
  return createEvent(orm.em.fork(), {
    slug: uniqueSlug(),
    name: 'Test Event',
    startAt: options.startAt ?? new Date('2026-06-01T18:00:00Z'),
    isPrivate: options.isPrivate ?? false,
    sets: Array.from({ length: setCount }, (_, index) => ({ slug: `set-${index + 1}`, name: `Set ${index + 1}` })),
  })
}

export type SeededSession = { id: string; label: string; photos: { id: string; storageKey: string; width: number; height: number }[] }

/**
 * A session in a given state with photos, written directly: the booth API that completes
 * sessions is its own capability, and these tests are about what the gallery shows.
 */
export async function seedSession(
  orm: Orm,
  setId: string,
  options: { status?: 'active' | 'completed' | 'cancelled'; photos?: number; createdAt?: Date; label?: string } = {},
): Promise<SeededSession> {
  const id = newId()
  const label = options.label ?? `Guest ${id.slice(0, 4)}`
  const photoCount = options.photos ?? 0
  const photos = Array.from({ length: photoCount }, (_, index) => ({
    id: newId(),
    storageKey: `sessions/${id}/${index + 1}.jpg`,
    width: 1200 + index,
    height: 1800 + index,
  }))
  const em = orm.em.fork()
  await em.transactional(async (tx) => {
    await tx.execute('insert into session (id, set_id, label, status, photo_count, created_at) values (?, ?, ?, ?, ?, ?)', [
      id,
      setId,
      label,
      options.status ?? 'completed',
      photoCount,
      options.createdAt ?? new Date(),
    ])
    for (const [index, photo] of photos.entries()) {
      await tx.execute(
        // Rows without an upload behind them: served as recorded, as photos from before copies existed.
        "insert into photo (id, session_id, position, storage_key, width, height, size_bytes, image_status) values (?, ?, ?, ?, ?, ?, ?, 'legacy')",
        [photo.id, id, index + 1, photo.storageKey, photo.width, photo.height, 1000],
      )
    }
  })
  return { id, label, photos }
}

/** Row counts of the tables a registration writes, to prove a refused request wrote nothing. */
export async function countRows(orm: Orm): Promise<Record<string, number>> {
  const [row] = await orm.em.fork().execute<Record<string, string>[]>(
    `select (select count(*) from session) as session, (select count(*) from session_guest) as session_guest,
            (select count(*) from customer) as customer`,
  )
  return Object.fromEntries(Object.entries(row ?? {}).map(([key, value]) => [key, Number(value)]))
}

/** Registers guests at a set through the kiosk route; the test fails unless it answers 201. The session's id. */
export async function registerGuests(app: { url: string }, setId: string, guests: readonly object[]): Promise<string> {
  const response = await postJson(`${app.url}/sets/${setId}/sessions`, { guests })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

export async function postJson(url: string, body: unknown, init: RequestInit = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })
}

/** A 400 of the contract's validator: zod's issues, at these paths (relative to the body or the path). */
export async function expectInvalid(response: Response, paths: (string | number)[][]) {
  expect(response.status).toBe(400)
  const body = await response.json()
  expect(body).toEqual({ success: false, error: { name: 'ZodError', message: expect.any(String) } })
  expect(JSON.parse(body.error.message).map((issue: { path: unknown }) => issue.path)).toEqual(paths)
}

/** A text with its ids (22 random URL-safe characters) masked: a search for a name must not find one spelled by chance in an id. */
export const withoutIds = (text: string): string => text.replace(/[A-Za-z0-9_-]{22}/g, '…')
