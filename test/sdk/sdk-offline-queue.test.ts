/**
 * The SDK's offline queue (issue 23) against the real service behind an HTTP proxy standing for a
 * venue's network: down (connections reset), losing answers (the request reaches the service, the
 * answer never comes back), and leaving from another address at each try (a kiosk whose retry
 * goes out over LTE). Each registration makes one session, in order; an upload resumed after a
 * restart stores every photo and completes the session once.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ApiError, createBoothClient } from '@photobooth/sdk/booth'
import { createKioskClient, type KioskClient } from '@photobooth/sdk/kiosk'
import { createOfflineQueue, memoryStore, type OfflineQueue, type QueueEvents } from '@photobooth/sdk/queue'
import { fileStore } from '@photobooth/sdk/queue-file'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startVenueProxy, type VenueProxy } from '../support/venue-proxy.js'

const app = withTestServer({ rateLimits: { windowMs: 60_000, clientIpHeader: 'x-test-client-ip', trustedProxies: ['loopback'] } })

let venue: VenueProxy
let directory: string
const queues: { close(): void }[] = []

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'photobooth-queue-'))
  venue = await startVenueProxy(app.url, { clientIpHeader: 'x-test-client-ip' })
})
afterEach(() => {
  queues.splice(0).forEach((queue) => queue.close())
  venue.network = 'up'
  venue.onRequest = undefined
})
afterAll(async () => {
  await venue?.close()
  await rm(directory, { recursive: true, force: true })
})

type Options = Omit<Parameters<typeof createOfflineQueue>[0], 'client'>
const fast = { retry: { minDelayMs: 5, maxDelayMs: 20 }, perMinute: 6000 } satisfies Options

function kioskQueue(options: Options = {}): OfflineQueue<KioskClient> {
  const client = createKioskClient({ baseUrl: venue.url, retry: false })
  const queue = createOfflineQueue({ client, ...fast, ...options })
  queues.push(queue)
  return queue
}

/** Every event of a queue, in order. */
function record(queue: Pick<OfflineQueue, 'on'>) {
  const events: { type: keyof QueueEvents; id: string; error?: unknown; result?: unknown; count: number }[] = []
  for (const type of ['queued', 'sent', 'failed', 'waiting'] as const)
    queue.on(type, (event) =>
      events.push({
        type,
        id: event.call.id,
        count: event.count,
        ...('error' in event ? { error: event.error } : {}),
        ...('result' in event ? { result: event.result } : {}),
      }),
    )
  return events
}

const labelsOf = async (setId: string) =>
  (await app.orm.em.fork().execute<{ label: string }[]>('select label from session where set_id = ? order by created_at, id', [setId])).map(
    (row) => row.label,
  )

describe('the offline queue of a kiosk', () => {
  it('when the service is away, then registrations are kept in a file, survive a restart of the app, and go in order once it answers, each once, though answers are lost and every try leaves from another address', async () => {
    const { sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const store = fileStore(join(directory, 'kiosk'))
    venue.network = 'down'
    const before = kioskQueue({ store })
    const names = ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']
    const outcomes = []
    for (const [index, name] of names.entries())
      outcomes.push(await before.registerGuests({ params: { setId }, body: { guests: [{ name, email: `guest${index}@example.org` }] } }))
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['queued', 'queued', 'queued'])
    expect(before.count).toBe(3)
    expect(await labelsOf(setId)).toEqual([])
    before.close()

    // The kiosk app restarts, still offline: its queue is read back from the file.
    const after = kioskQueue({ store })
    const events = record(after)
    await after.ready
    expect(after.list().map((call) => call.id)).toEqual(outcomes.map((outcome) => (outcome as { id: string }).id))

    venue.reached.length = 0
    venue.network = 'losing answers'
    venue.answersToLose = 2
    after.wake()
    await after.drained()

    expect(await labelsOf(setId)).toEqual(names)
    const sent = events.filter((event) => event.type === 'sent')
    expect(sent.map((event) => event.id)).toEqual(outcomes.map((outcome) => (outcome as { id: string }).id))
    expect(sent.map((event) => (event.result as { label: string }).label)).toEqual(names)
    expect(sent.map((event) => event.count)).toEqual([2, 1, 0])
    // The lost answers were tried again with the same key, from another address, and replayed.
    const first = venue.reached.filter((each) => each.key === sent[0]!.id)
    expect(first.length).toBeGreaterThanOrEqual(2)
    expect(new Set(first.map((each) => each.ip)).size).toBe(first.length)
    expect(after.count).toBe(0)
    expect(await fileStore(join(directory, 'kiosk')).load()).toEqual([])
  })

  it('when a queued registration is refused for good (its set is gone), then it is surfaced as failed and dropped, and the next one goes', async () => {
    const { sets } = await seedEvent(app.orm)
    venue.network = 'down'
    const queue = kioskQueue({ store: memoryStore() })
    const events = record(queue)
    const gone = await queue.registerGuests({
      params: { setId: '0196a0f0-0000-7000-8000-000000000000' },
      body: { guests: [{ name: 'Lost', email: 'lost@example.org' }] },
    })
    const kept = await queue.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Kept', email: 'kept@example.org' }] },
    })
    expect([gone.status, kept.status]).toEqual(['queued', 'queued'])
    venue.network = 'up'
    queue.wake()
    await queue.drained()
    const settled = events.filter((event) => event.type === 'sent' || event.type === 'failed')
    expect(settled.map((event) => [event.type, event.id])).toEqual([
      ['failed', (gone as { id: string }).id],
      ['sent', (kept as { id: string }).id],
    ])
    expect(settled[0]!.error).toBeInstanceOf(ApiError)
    expect((settled[0]!.error as ApiError).status).toBe(404)
    expect(await labelsOf(sets[0]!.id)).toEqual(['Kept'])
  })

  it('when a kiosk makes calls at once, without waiting for each, then they are sent in the order they were made', async () => {
    const { sets } = await seedEvent(app.orm)
    const queue = kioskQueue({ store: fileStore(join(directory, 'at-once')) })
    // Twelve guests and one in turn: saves of different sizes finish in any order.
    const names = Array.from({ length: 10 }, (_, index) => `Call${String(index + 1).padStart(2, '0')}`)
    await Promise.all(
      names.map((name, index) =>
        queue.registerGuests({
          params: { setId: sets[0]!.id },
          body: {
            guests: Array.from({ length: index % 2 === 0 ? 12 : 1 }, (_, guest) => ({
              name: `${name} ${guest}`,
              email: `c${index}.${guest}@example.org`,
            })),
          },
        }),
      ),
    )
    await queue.drained()
    expect((await labelsOf(sets[0]!.id)).map((label) => label.slice(0, 6))).toEqual(names)
  })

  it('when the service answers, then the registration is sent at once, and a guest’s mistake is given back to be fixed, not queued', async () => {
    const { sets } = await seedEvent(app.orm)
    const queue = kioskQueue()
    const events = record(queue)
    const sent = await queue.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Now', email: 'now@example.org' }] },
    })
    expect(sent).toMatchObject({ status: 'sent', result: { label: 'Now', status: 'active' } })
    await expect(
      queue.registerGuests({ params: { setId: sets[0]!.id }, body: { guests: [{ name: 'Bad Phone', phone: '12' }] } }),
    ).rejects.toMatchObject({ status: 400 })
    // The guest at the screen sees the refusal; no `failed` event tells staff a guest has gone.
    expect(events.filter((event) => event.type === 'failed')).toEqual([])
    expect(queue.count).toBe(0)
    expect(await labelsOf(sets[0]!.id)).toEqual(['Now'])
  })

  it('when calls keep coming while a backlog drains, then each new call (which wakes the queue) does not shorten the pace', async () => {
    const { sets } = await seedEvent(app.orm)
    venue.network = 'down'
    const queue = kioskQueue({ perMinute: 600 })
    const register = (index: number) =>
      queue.registerGuests({
        params: { setId: sets[0]!.id },
        body: { guests: [{ name: `Burst ${index}`, email: `b${index}@example.org` }] },
      })
    for (let index = 0; index < 3; index++) await register(index)
    // When each try leaves (its request reaches the venue's link), not when its answer comes back.
    const sentAt: number[] = []
    venue.onRequest = (method) => {
      if (method === 'POST') sentAt.push(performance.now())
    }
    venue.network = 'up'
    queue.wake()
    // A guest registers every few milliseconds while the backlog goes: every call wakes the queue.
    for (let index = 3; index < 8; index++) await register(index)
    await queue.drained()
    expect(sentAt).toHaveLength(8)
    // 600 a minute: 100 ms apart. Read where the requests arrive, so each gap carries the link's jitter
    // (a few ms on a loaded machine); a wake that cut the pace short would send within a few ms instead.
    for (let index = 1; index < sentAt.length; index++) expect(sentAt[index]! - sentAt[index - 1]!).toBeGreaterThanOrEqual(90)
    // and over the whole backlog, never faster than the pace.
    expect(sentAt.at(-1)! - sentAt[0]!).toBeGreaterThanOrEqual(7 * 100 - 10)
  })

  it('when its store holds what a crash left (an empty entry, a temporary file, a photo of no entry), then the queue sets it aside and works', async () => {
    const { sets } = await seedEvent(app.orm)
    const folder = join(directory, 'crashed')
    await mkdir(folder, { recursive: true })
    await writeFile(join(folder, '11111111-2222-3333-4444-555555555555.json'), '')
    await writeFile(join(folder, '66666666-7777-8888-9999-000000000000.json.3.tmp'), '{"id":')
    await writeFile(join(folder, '66666666-7777-8888-9999-000000000000.0.jpg'), makeJpeg(8, 8, 1))
    const queue = kioskQueue({ store: fileStore(folder) })
    const outcome = await queue.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'After Crash', email: 'crash@example.org' }] },
    })
    expect(outcome.status).toBe('sent')
    // Beside the lock of the queue that holds the folder.
    expect(await readdir(folder)).toEqual(['.lock', '11111111-2222-3333-4444-555555555555.json.unreadable'])
  })

  it('when it is closed while a call hangs on a stalled link, then the try is abandoned at once, the call stays stored for the next start, and no event follows', async () => {
    const { sets } = await seedEvent(app.orm)
    const store = memoryStore()
    venue.network = 'stalled'
    const queue = kioskQueue({ store, deadlineMs: 60_000 })
    const events = record(queue)
    const abandoned = venue.abandoned.next()
    const arrived = new Promise<void>((resolve) => {
      venue.onRequest = () => resolve()
    })
    const registering = queue.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Stalled', email: 'stalled@example.org' }] },
    })
    await arrived
    queue.close()
    expect(await registering).toMatchObject({ status: 'queued' })
    await abandoned
    expect((await store.load()).map((entry) => entry.route)).toEqual(['kiosk.registerGuests'])
    expect(events.map((event) => event.type)).toEqual(['queued'])
  })

  it('when a backlog drains, then the calls are paced at the configured rate (an injected clock)', async () => {
    const { sets } = await seedEvent(app.orm)
    let now = 0
    const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) }
    venue.network = 'down'
    const queue = kioskQueue({ perMinute: 30, clock, retry: { minDelayMs: 1000, maxDelayMs: 1000 } })
    for (let index = 0; index < 4; index++)
      await queue.registerGuests({
        params: { setId: sets[0]!.id },
        body: { guests: [{ name: `Guest ${index}`, email: `g${index}@example.org` }] },
      })
    const sentAt: number[] = []
    queue.on('sent', () => sentAt.push(now))
    venue.network = 'up'
    queue.wake()
    await queue.drained()
    expect(sentAt).toHaveLength(4)
    // 30 a minute: two seconds apart at least.
    for (let index = 1; index < sentAt.length; index++) expect(sentAt[index]! - sentAt[index - 1]!).toBeGreaterThanOrEqual(2000)
  })
})

describe('the offline queue of a booth', () => {
  let boothKey: string
  beforeAll(async () => {
    boothKey = await createTestBoothKey(app)
  })

  it('when the link resets during an upload and the app restarts, then the upload resumes: every photo stored, and the session completed once though the completion’s answer is lost', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await createKioskClient({ baseUrl: app.url }).kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Booth Guest', email: 'booth@example.org' }] },
    })
    const store = fileStore(join(directory, 'booth'))
    // Upload URLs name the service's address: this booth sends them through the venue's proxy too.
    const booth = () =>
      createBoothClient({
        baseUrl: venue.url,
        boothKey,
        retry: false,
        uploadUrl: (url) => url.replace(new URL(app.url).origin, venue.url),
      })
    const photos = [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2), makeJpeg(20, 20, 3)]

    // The second photo's PUT is stored but its answer is lost, then the network goes.
    const before = createOfflineQueue({ client: booth(), store, ...fast })
    queues.push(before)
    before.on('waiting', () => {
      venue.network = 'down'
    })
    let puts = 0
    venue.onRequest = (method) => {
      if (method === 'PUT' && ++puts === 2) venue.answersToLose = 1
    }
    venue.network = 'losing answers'
    venue.answersToLose = 0
    expect(await before.uploadPhotos(session.id, photos)).toMatchObject({ status: 'queued' })
    venue.onRequest = undefined
    before.close()
    const saved = await fileStore(join(directory, 'booth')).load()
    expect(saved).toHaveLength(1)
    const progress = saved[0]!.route === 'booth.uploadPhotos' ? saved[0]!.progress : undefined
    const notStored = progress?.stored.filter((key) => key === null).length
    // The photo whose answer was lost is not known to be stored; the others are.
    expect(notStored).toBeGreaterThanOrEqual(1)
    expect(notStored).toBeLessThan(photos.length)

    // The booth app restarts and the network is back, but the completion's first answer is lost.
    venue.reached.length = 0
    venue.network = 'losing answers'
    let completions = 0
    venue.onRequest = (method, path) => {
      if (method === 'POST' && path.endsWith('/complete') && ++completions === 1) venue.answersToLose = 1
    }
    const after = createOfflineQueue({ client: booth(), store, ...fast })
    queues.push(after)
    const events = record(after)
    await after.ready
    after.wake()
    await after.drained()

    const sent = events.find((event) => event.type === 'sent')
    expect(sent?.result).toMatchObject({ status: 'completed', photos: [{ width: 24 }, { width: 16 }, { width: 20 }] })
    const em = app.orm.em.fork()
    expect(await em.execute('select count(*)::int as n from photo where session_id = ?', [session.id])).toEqual([{ n: 3 }])
    expect(await em.execute('select count(*)::int as n from outbox_message where session_id = ?', [session.id])).toEqual([{ n: 1 }])
    // Only the photos not known to be stored were sent again (the lost answer's one: storage's 412 says it is there).
    expect(venue.reached.filter((each) => each.method === 'PUT')).toHaveLength(notStored!)
    // The completion was sent again with its key, from another address, and replayed.
    const completes = venue.reached.filter((each) => each.path.endsWith('/complete'))
    expect(completes.length).toBeGreaterThanOrEqual(2)
    expect(new Set(completes.map((each) => each.key)).size).toBe(1)
  })

  it('when a queued upload is refused for good (its session was cancelled meanwhile), then the failed event hands the photos back', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await createKioskClient({ baseUrl: app.url }).kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Cancelled', email: 'cancelled@example.org' }] },
    })
    const booth = createBoothClient({ baseUrl: venue.url, boothKey, retry: false })
    const queue = createOfflineQueue({ client: booth, store: fileStore(join(directory, 'refused')), ...fast })
    queues.push(queue)
    const failed = new Promise<QueueEvents['failed']>((resolve) => queue.on('failed', resolve))
    venue.network = 'down'
    const photos = [makeJpeg(12, 10, 7), makeJpeg(10, 12, 8)]
    expect(await queue.uploadPhotos(session.id, photos)).toMatchObject({ status: 'queued' })
    await createBoothClient({ baseUrl: app.url, boothKey }).booth.cancel({ params: { sessionId: session.id } })
    venue.network = 'up'
    queue.wake()
    const { error, photos: handedBack } = await failed
    expect(error).toMatchObject({ status: 409 })
    expect(handedBack?.map((photo) => Buffer.from(photo))).toEqual(photos)
    expect(await readdir(join(directory, 'refused'))).toEqual(['.lock'])
  })
})
