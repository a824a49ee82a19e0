/**
 * Drill: `kill -9` in the middle of a burst of registrations and completions, then a restart on
 * the same database and the same local bucket. Nothing may be half written, every queued message
 * is sent once (at least once for a send the kill cut in flight, the documented guarantee), and
 * the partial uploads the crash left are swept.
 *
 * The local bucket's layout (DATA_DIR/bucket): `sessions/<session id>/<photo id>.jpg`, the photos
 * (hard-linked into place only once whole), and beside them `.upload-<16 hex>`, an upload being
 * written. Stray, after a crash: a `.upload-*` file (its writer died), and a photo file in a
 * completed session that no photo row names. A photo file in a still active session is not stray:
 * its booth may still complete the session with it (it goes with the session when staff delete it).
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createClient, NetworkError, TimeoutError, uploadPhotos } from '@photobooth/sdk'
import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { createBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { displayCopyKey, fullSizeKey } from '@photobooth/server/modules/photos/photo-copies.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { forkDrillService, messagesOf, tally, type DrillService } from '../support/drill-processes.js'
import { startFakePostmark, startFakeTwilio, type FakeProvider } from '../support/fake-providers.js'
import { seedEvent } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { until } from '../support/until.js'

const SID = 'AC0123456789abcdef0123456789abcdef'
/** The burst: kiosks registering in a loop, booths registering, uploading and completing in a loop. */
const KIOSKS = 40
const REGISTRATIONS_PER_KIOSK = 3
const BOOTHS = 40
const SESSIONS_PER_BOOTH = 2
/** Kill once this many completions are answered, while completions and registrations are in flight. */
const KILL_AFTER_COMPLETIONS = 20
/**
 * The dead instance's claimed messages are taken again once their lease has run out: shorter here
 * than the 2 minutes of production, but longer than the live instance needs to send what it holds
 * even on a loaded machine (a lease that runs out under a live sender lets its messages go twice).
 */
const LEASE_MS = 10_000

const databases = scratchDatabases('drill_kill')
let databaseUrl: string
let orm: Orm
let postmark: FakeProvider
let twilio: FakeProvider
let dataDir: string
let setId: string
let boothKey: string
const services: DrillService[] = []
const images = [makeJpeg(320, 240, 1), makeJpeg(240, 320, 2), makeJpeg(300, 300, 3), makeJpeg(360, 200, 4)]

beforeAll(async () => {
  ;[postmark, twilio] = await Promise.all([startFakePostmark(), startFakeTwilio()])
  databaseUrl = await databases.create()
  orm = await openOrm(databaseUrl)
  await migrate(orm)
  setId = (await seedEvent(orm)).sets[0]!.id
  boothKey = (await createBoothKey(orm.em.fork(), 'Drill booth')).key
  dataDir = await mkdtemp(join(tmpdir(), 'photobooth-drill-kill-'))
})

afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
  await orm?.close()
  await databases.dropAll()
  await Promise.all([postmark?.close(), twilio?.close()])
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

/** Both lives of the service: one database, one DATA_DIR (so one local bucket), the same fakes. */
async function startService(): Promise<DrillService> {
  const service = await forkDrillService({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DELIVERY: 'on',
    POSTMARK_SERVER_TOKEN: 'postmark-token',
    POSTMARK_FROM: 'Photos <photos@example.com>',
    POSTMARK_API_URL: postmark.url,
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: 'twilio-token',
    TWILIO_FROM: '+15005550006',
    TWILIO_API_URL: twilio.url,
    // Every kiosk request comes from an address of its own: the burst is not a rate-limit test.
    CLIENT_IP_HEADER: 'x-drill-client-ip',
    TEST_DISPATCHER: JSON.stringify({ intervalMs: 200, leaseMs: LEASE_MS }),
    TEST_COPIES: JSON.stringify({ intervalMs: 200, leaseMs: LEASE_MS }),
  })
  services.push(service)
  return service
}

type Guest = { name: string; email?: string; phone?: string }
let phones = 1000
let addresses = 0
/** 1 to 3 guests, each with an address no other guest of the drill has (an email, a phone, or both). */
function guestsFor(request: number): Guest[] {
  return Array.from({ length: 1 + (request % 3) }, (_, index) => {
    const kind = (request + index) % 3
    const email = kind !== 1 ? `drill-${request}-${index}@example.org` : undefined
    const phone = kind !== 0 ? `+1415555${String(phones++).padStart(4, '0')}` : undefined
    return { name: `Req${request} Guest${index}`, ...(email ? { email } : {}), ...(phone ? { phone } : {}) }
  })
}
const nextIp = () => {
  addresses++
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`
}

/** What the clients saw: what they asked for, what was answered, and when the kill came. */
type Burst = {
  /** Each registration's guests, by request number (the first name of every guest is `Req<n>`). */
  asked: Map<number, Guest[]>
  /** The registrations answered 201: request number → session id. */
  registered: Map<number, string>
  /** The completions answered 200: session id → photo URLs' keys in gallery order, and photo ids. */
  completed: Map<string, { urls: string[]; ids: string[] }>
  /** Everything a client got that is not the kill's network error. */
  unexpected: string[]
  killedAt?: { completionsAnswered: number; completionsInFlight: number; registrationsInFlight: number }
}

describe('kill -9 in the middle of a burst', () => {
  it('when the service is killed mid-burst and restarted, then no session is half written, every queued message is sent once and crash leftovers are swept', async () => {
    const first = await startService()
    const burst: Burst = { asked: new Map(), registered: new Map(), completed: new Map(), unexpected: [] }
    let completionsAnswered = 0
    let completionsInFlight = 0
    let registrationsInFlight = 0
    const killIfDue = () => {
      if (burst.killedAt || completionsAnswered < KILL_AFTER_COMPLETIONS || completionsInFlight < 2 || registrationsInFlight < 2) return
      burst.killedAt = { completionsAnswered, completionsInFlight, registrationsInFlight }
      first.child.kill('SIGKILL')
    }
    /** The clients' fetch, counting the requests in flight to know when to kill. */
    const watched: typeof fetch = async (input, init) => {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET')
      const path = new URL(input instanceof Request ? input.url : String(input)).pathname
      const kind =
        method !== 'POST'
          ? undefined
          : path.endsWith('/complete')
            ? 'complete'
            : /^\/sets\/[^/]+\/sessions$/.test(path)
              ? 'register'
              : undefined
      if (kind === 'complete') completionsInFlight++
      if (kind === 'register') registrationsInFlight++
      try {
        const response = await fetch(input, init)
        if (kind === 'complete' && response.ok) completionsAnswered++
        return response
      } finally {
        if (kind === 'complete') completionsInFlight--
        if (kind === 'register') registrationsInFlight--
        killIfDue()
      }
    }
    let requests = 0
    const register = async () => {
      const number = ++requests
      const guests = guestsFor(number)
      burst.asked.set(number, guests)
      const kiosk = createClient({
        baseUrl: first.url,
        fetch: watched,
        retry: false,
        timeoutMs: 60_000,
        headers: { 'x-drill-client-ip': nextIp() },
      })
      const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests } })
      burst.registered.set(number, session.id)
      return session.id
    }
    const booth = createClient({ baseUrl: first.url, boothKey, fetch: watched, retry: false, timeoutMs: 60_000 })
    /** Until the first failure, which must be the kill's. */
    const loop = async (times: number, step: (index: number) => Promise<unknown>) => {
      try {
        for (let index = 0; index < times; index++) await step(index)
      } catch (error) {
        if (!(error instanceof NetworkError || error instanceof TimeoutError) || !burst.killedAt) burst.unexpected.push(String(error))
      }
    }

    // Two uploads held half sent, so that the kill surely leaves partial files beside the photos.
    const held = await holdPartialUploads(first.url, await register(), 2)
    await until(
      () => partialFiles(),
      (files) => files.length === 2,
    )

    await Promise.all([
      ...Array.from({ length: KIOSKS }, () => loop(REGISTRATIONS_PER_KIOSK, register)),
      ...Array.from({ length: BOOTHS }, (_, boothIndex) =>
        loop(SESSIONS_PER_BOOTH, async (index) => {
          const sessionId = await register()
          const photos = images.slice(0, 1 + ((boothIndex + index) % images.length))
          const answer = await uploadPhotos(booth, sessionId, photos, { retry: false })
          burst.completed.set(sessionId, {
            urls: answer.photos.map((photo) => new URL(photo.url).pathname.replace(/^\/photos\//, '')),
            ids: answer.photos.map((photo) => photo.id),
          })
        }),
      ),
    ])
    if (!burst.killedAt) first.child.kill('SIGKILL')
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' })
    await held.ended

    // The kill came where the drill means it to: some completions answered, others and registrations on their way.
    expect(burst.killedAt, `the burst ended before the kill was due: ${burst.unexpected.join('; ')}`).toBeDefined()
    expect(burst.unexpected).toEqual([])
    expect(first.stderr()).toBe('')

    // What the crash left in the bucket, before any restart.
    const leftByCrash = await partialFiles()
    expect(leftByCrash.length).toBeGreaterThanOrEqual(2)
    // Made as old as the sweep wants (the crash "long ago"), all but one, which stays as fresh as an
    // upload another instance might still be writing.
    const [fresh, ...old] = leftByCrash
    const longAgo = new Date(Date.now() - 16 * 60_000)
    for (const file of old) await utimes(file, longAgo, longAgo)

    // What the first life sent: everything the providers got before the second life starts.
    const firstLife = { postmark: postmark.requests.length, twilio: twilio.requests.length }
    const second = await startService()
    await until(
      () => partialFiles(),
      (files) => files.length === 1,
      10_000,
    )
    expect(await partialFiles()).toEqual([fresh])

    // Every queued message is sent, the dead instance's claims once their lease has run out.
    const outbox = await until(
      () =>
        orm.em
          .fork()
          .execute<{ session_id: string; channel: 'email' | 'sms'; recipient: string; link: string; status: string; attempts: number }[]>(
            'select session_id, channel, recipient, link, status, attempts from outbox_message',
          ),
      (rows) => rows.every((row) => row.status === 'sent'),
      LEASE_MS + 20_000,
    )
    await Promise.all([postmark.replied(), twilio.replied()])
    // Every photo's copies are made, the dead instance's claims once their lease has run out.
    await until(
      () => orm.em.fork().execute<{ queued: number }[]>("select count(*)::int as queued from photo where image_status = 'queued'"),
      ([row]) => row!.queued === 0,
      LEASE_MS + 20_000,
    )

    const report = await checkStateAgainst(burst, outbox)

    // Each message reached its provider once, counted across both lives; twice only if the kill
    // cut its send in flight: the first life's request reached the provider, but the dead instance
    // never recorded it sent, so the second life sent it again (at least once, as documented).
    const sentByFirstLife = tally([
      ...messagesOf(postmark, 'email', postmark.requests.slice(0, firstLife.postmark)),
      ...messagesOf(twilio, 'sms', twilio.requests.slice(0, firstLife.twilio)),
    ])
    const delivered = [...messagesOf(postmark, 'email'), ...messagesOf(twilio, 'sms')]
    const counts = tally(delivered)
    const expected = new Map(outbox.map((row) => [`${row.channel} ${row.recipient}`, row]))
    expect(
      [...counts.keys()].filter((key) => !expected.has(key)),
      'messages nobody queued',
    ).toEqual([])
    const duplicates: string[] = []
    for (const [key, row] of expected) {
      const count = counts.get(key) ?? 0
      if (count === 2 && sentByFirstLife.get(key) === 1) duplicates.push(`${key} (attempts ${row.attempts})`)
      else
        expect(
          count,
          `${key}: sent ${count} times, ${sentByFirstLife.get(key) ?? 0} of them by the first life (attempts ${row.attempts})\n${second.stderr()}`,
        ).toBe(1)
    }
    for (const message of delivered) expect(message.text).toContain(expected.get(`${message.channel} ${message.recipient}`)!.link)

    const down = second.exited
    second.child.kill('SIGTERM')
    expect(await down).toEqual({ code: 0, signal: null })
    expect(second.stderr()).toBe('')

    console.info(
      `kill -9 drill: killed at ${JSON.stringify(burst.killedAt)}; ${report}; ${outbox.length} messages, ` +
        `${firstLife.postmark + firstLife.twilio} provider requests by the first life, ${duplicates.length} sent twice (send in flight at the kill: ${duplicates.join(', ')})` +
        `; ${outbox.filter((row) => row.attempts >= 2).length} claimed by the dead instance and sent after its lease` +
        `; ${leftByCrash.length} partial uploads left by the crash`,
    )
    // Bounded at 3 minutes: it takes 25 s alone, and over a minute beside the suite's other files on 2 busy cores (a clean-clone run).
  }, 180_000)
})

/**
 * The database and the bucket after the restart, against what the clients were answered. Answers
 * a one-line summary.
 */
async function checkStateAgainst(burst: Burst, outbox: { session_id: string; channel: string; recipient: string }[]): Promise<string> {
  const em = orm.em.fork()
  const sessions = await em.execute<{ id: string; status: string; photo_count: number }[]>('select id, status, photo_count from session')
  const guests = await em.execute<
    { session_id: string; position: number; first_name: string; email: string | null; phone: string | null }[]
  >('select session_id, position, first_name, email, phone from session_guest order by session_id, position')
  const photos = await em.execute<{ id: string; session_id: string; position: number; storage_key: string; size_bytes: number }[]>(
    'select id, session_id, position, storage_key, size_bytes from photo order by session_id, position',
  )
  const byStatus = (status: string) => sessions.filter((session) => session.status === status)
  const guestsOf = (id: string) => guests.filter((guest) => guest.session_id === id)
  const photosOf = (id: string) => photos.filter((photo) => photo.session_id === id)

  // Every registration answered 201 is there; no session is there that nobody asked for.
  const ids = new Set(sessions.map((session) => session.id))
  expect([...burst.registered.values()].filter((id) => !ids.has(id))).toEqual([])
  expect(sessions.length).toBeLessThanOrEqual(burst.asked.size)
  expect(byStatus('cancelled')).toEqual([])

  for (const session of sessions) {
    // Whole: the guests of exactly one registration, all of them, in order.
    const its = guestsOf(session.id)
    expect(its.length, `session ${session.id} has no guests`).toBeGreaterThan(0)
    const request = Number(/^Req(\d+)$/.exec(its[0]!.first_name)?.[1])
    const asked = burst.asked.get(request)!
    expect(its.map((guest) => [guest.first_name, guest.email, guest.phone])).toEqual(
      asked.map((guest) => [guest.name.split(' ')[0], guest.email ?? null, guest.phone ?? null]),
    )
    if (burst.registered.has(request)) expect(burst.registered.get(request)).toBe(session.id)

    const rows = photosOf(session.id)
    if (session.status === 'active') {
      expect(burst.completed.has(session.id), `completion of ${session.id} was answered, but it is active`).toBe(false)
      expect([session.photo_count, rows.length]).toEqual([0, 0])
      expect(outbox.filter((message) => message.session_id === session.id)).toEqual([])
      continue
    }
    expect(session.status).toBe('completed')
    expect(rows.length).toBe(session.photo_count)
    expect(rows.map((row) => row.position)).toEqual(rows.map((_, index) => index + 1))
    const answered = burst.completed.get(session.id)
    if (answered) {
      expect(rows.map((row) => fullSizeKey(row.session_id, row.id))).toEqual(answered.urls)
      expect(rows.map((row) => row.id)).toEqual(answered.ids)
    }
    // One message per guest and channel, queued with the completion.
    const queued = outbox.filter((message) => message.session_id === session.id).map((message) => `${message.channel} ${message.recipient}`)
    const owed = its.flatMap((guest) => [...(guest.email ? [`email ${guest.email}`] : []), ...(guest.phone ? [`sms ${guest.phone}`] : [])])
    expect(queued.sort()).toEqual(owed.sort())
  }
  // Every message belongs to a completed session.
  const completed = new Set(byStatus('completed').map((session) => session.id))
  expect(outbox.filter((message) => !completed.has(message.session_id))).toEqual([])

  // Every photo's copies were made and counted once, whichever life made them; their files are whole.
  const copies = await em.execute<
    { id: string; session_id: string; image_status: string; full_size: number; copies: { width: number }[] }[]
  >('select id, session_id, image_status, full_size, copies from photo')
  for (const photo of copies) {
    expect(photo.image_status, `copies of ${photo.id}`).toBe('ready')
    expect((await stat(join(dataDir, 'bucket', fullSizeKey(photo.session_id, photo.id)))).size).toBe(photo.full_size)
    for (const copy of photo.copies) await stat(join(dataDir, 'bucket', displayCopyKey(photo.session_id, photo.id, copy.width)))
  }
  const settled = await em.execute<{ id: string; photo_count: number; images_settled: number }[]>(
    "select id, photo_count, images_settled from session where status = 'completed'",
  )
  expect(settled.filter((session) => session.images_settled !== session.photo_count)).toEqual([])

  // Every photo row's object is in the bucket, whole; no completed session has a photo file no row names.
  for (const row of photos) expect((await stat(join(dataDir, 'bucket', row.storage_key))).size, row.storage_key).toBe(row.size_bytes)
  let waiting = 0
  for (const session of sessions) {
    const files = (await readdir(join(dataDir, 'bucket', 'sessions', session.id)).catch(() => [] as string[])).filter((name) =>
      name.endsWith('.jpg'),
    )
    const named = new Set(photosOf(session.id).map((row) => row.storage_key.split('/').pop()))
    if (session.status === 'completed')
      expect(
        files.filter((name) => !named.has(name)),
        `stray photos of ${session.id}`,
      ).toEqual([])
    else waiting += files.length
  }
  return (
    `${sessions.length} sessions (${completed.size} completed, ${byStatus('active').length} active), ${photos.length} photos, ` +
    `${burst.registered.size} registrations and ${burst.completed.size} completions answered, ${waiting} uploaded photos awaiting completion`
  )
}

/** The `.upload-*` files in the bucket, sorted. */
async function partialFiles(): Promise<string[]> {
  const root = join(dataDir, 'bucket', 'sessions')
  const found: string[] = []
  for (const folder of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, folder)).catch(() => [] as string[])) {
      if (name.startsWith('.upload-')) found.push(join(root, folder, name))
    }
  }
  return found.sort()
}

/**
 * `count` uploads to a session, each PUT sending half its body and then nothing more: the service
 * is writing them when it dies. `ended` resolves once every one has ended (the kill resets them).
 */
async function holdPartialUploads(baseUrl: string, sessionId: string, count: number): Promise<{ ended: Promise<void> }> {
  const booth = createClient({ baseUrl, boothKey, retry: false })
  const { uploads } = await booth.booth.createUploads({ params: { sessionId }, body: { count } })
  const body = randomBytes(256 * 1024)
  const ended = uploads.map(
    (upload) =>
      new Promise<void>((resolve) => {
        const req = request(upload.url, { method: 'PUT', headers: { ...upload.headers, 'content-length': body.length } })
        req.on('error', () => resolve())
        req.on('response', (res) => {
          res.resume()
          res.on('close', () => resolve())
        })
        req.write(body.subarray(0, body.length / 2))
      }),
  )
  return { ended: Promise.all(ended).then(() => undefined) }
}
