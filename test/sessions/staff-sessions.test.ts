import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled } from '../support/gallery-fixture.js'
import { createTestBoothKey, postJson, seedEvent, seedSession, withTestServer, registerGuests } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

/** The service's clock: registrations, completions and cancellations happen when a test says. */
let clock = new Date('2026-06-01T18:00:00.000Z')
const app = withTestServer({}, { now: () => clock })
let staff: StaffSession
let booth: PhotoBoothClient
let boothKey: string
beforeAll(async () => {
  staff = await signedInStaff(app)
  boothKey = await createTestBoothKey(app)
  booth = createClient({ baseUrl: app.url, boothKey })
})

const api = (path: string, init?: { method?: string; body?: unknown }) => staffFetch(app, staff, path, init)
const email = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.org`
const galleryUrl = (sessionId: string) => `${app.config.galleryUrl}/${sessionId}`

type Guest = { name: string; email?: string; phone?: string }

/** Registers guests at a set through the kiosk route, at the given moment. */
async function register(setId: string, guests: Guest[], at: Date): Promise<string> {
  clock = at
  return registerGuests(app, setId, guests)
}

/** Completes a session through the booth API with `count` real JPEGs, at the given moment. */
async function complete(sessionId: string, count: number, at: Date): Promise<void> {
  clock = at
  const { uploads } = await booth.booth.createUploads({ params: { sessionId }, body: { count } })
  for (const [index, upload] of uploads.entries()) {
    expect((await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: makeJpeg(16, 12, index) })).status).toBe(200)
  }
  await booth.booth.complete({ params: { sessionId }, body: { photos: uploads.map((upload) => upload.key) } })
}

/** A session as the list answers it, for sessions seeded without guests. */
const listed = (session: { id: string; label: string }, setId: string, status: string, createdAt: Date, photoCount = 0) => ({
  id: session.id,
  setId,
  label: session.label,
  status,
  photoCount,
  galleryUrl: galleryUrl(session.id),
  createdAt: createdAt.getTime(),
  completedAt: null,
  cancelledAt: null,
  guests: [],
  // Seeded photos have no upload behind them: recorded as photos from before copies existed.
  ...(photoCount > 0 && { copies: { queued: 0, ready: 0, failed: [], legacy: photoCount } }),
})

async function list(eventId: string, query = '') {
  const response = await api(`/staff/events/${eventId}/sessions${query}`)
  return { status: response.status, body: await response.json() }
}

describe('GET /staff/events/:eventId/sessions', () => {
  it('when an event has sessions in two sets, then they come newest first, and the set and status filters narrow them', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    const [first, second] = [sets[0]!.id, sets[1]!.id]
    const at = (minute: number) => new Date(Date.UTC(2026, 5, 1, 18, minute))
    const a = await seedSession(app.orm, first, { status: 'completed', photos: 2, createdAt: at(1) })
    const b = await seedSession(app.orm, second, { status: 'active', createdAt: at(2) })
    const c = await seedSession(app.orm, first, { status: 'cancelled', createdAt: at(3) })
    const other = await seedEvent(app.orm)

    expect(await list(event.id)).toEqual({
      status: 200,
      body: {
        sessions: [listed(c, first, 'cancelled', at(3)), listed(b, second, 'active', at(2)), listed(a, first, 'completed', at(1), 2)],
        nextCursor: null,
      },
    })
    const ids = async (query: string) => ((await list(event.id, query)).body.sessions as { id: string }[]).map((session) => session.id)
    expect(await ids(`?setId=${first}`)).toEqual([c.id, a.id])
    expect(await ids('?status=active')).toEqual([b.id])
    expect(await ids(`?setId=${first}&status=completed`)).toEqual([a.id])
    // A set of another event is a filter that matches nothing here.
    expect(await list(event.id, `?setId=${other.sets[0]!.id}`)).toEqual({ status: 200, body: { sessions: [], nextCursor: null } })
  })

  it('when five sessions are paged two at a time, then three pages hold each once in order, ties and microseconds included', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const same = new Date('2026-06-01T19:00:00.000Z')
    const sessions = [
      await seedSession(app.orm, setId, { createdAt: new Date('2026-06-01T18:00:00.000Z') }),
      await seedSession(app.orm, setId, { createdAt: same }),
      await seedSession(app.orm, setId, { createdAt: same }),
      await seedSession(app.orm, setId, { createdAt: same }),
      await seedSession(app.orm, setId, { createdAt: new Date('2026-06-01T20:00:00.000Z') }),
    ]
    // Within one millisecond, as a `now()` default writes them: two tied across the first page's edge, one
    // 400 µs older. A cursor rounded to milliseconds would skip both on the second page.
    const em = app.orm.em.fork()
    await em.execute(`update session set created_at = created_at + interval '700 microseconds' where id in (?)`, [
      [sessions[1]!.id, sessions[2]!.id],
    ])
    await em.execute(`update session set created_at = created_at + interval '300 microseconds' where id = ?`, [sessions[3]!.id])
    const expected = await em.execute<{ id: string }[]>('select id from session where set_id = ? order by created_at desc, id desc', [
      setId,
    ])

    const pages: string[][] = []
    let cursor: string | null = null
    do {
      const page: Awaited<ReturnType<typeof list>> = await list(
        event.id,
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      expect(page.status).toBe(200)
      pages.push(page.body.sessions.map((session: { id: string }) => session.id))
      cursor = page.body.nextCursor
    } while (cursor !== null)
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1])
    expect(pages.flat()).toEqual(expected.map((row) => row.id))
    expect(pages[0]![0]).toBe(sessions[4]!.id)
    expect(pages[1]![1]).toBe(sessions[3]!.id)
    expect(pages[2]![0]).toBe(sessions[0]!.id)
  })

  it('when the cursor is not one the service made, then 400', async () => {
    const { event } = await seedEvent(app.orm)
    for (const cursor of [
      'not-a-cursor',
      Buffer.from(JSON.stringify({ at: 1 })).toString('base64url'),
      Buffer.from('[-1,"abc"]').toString('base64url'),
    ]) {
      expect(await list(event.id, `?cursor=${cursor}`)).toEqual({
        status: 400,
        body: { error: 'Invalid cursor: pass the nextCursor of the previous page', code: 'invalid_cursor' },
      })
    }
  })

  it('when the event is unknown, then 404 "no such event"', async () => {
    expect(await list('AAAAAAAAAAAAAAAAAAAAAA')).toEqual({
      status: 404,
      body: { error: 'no such event', code: 'no_such_event' },
    })
  })
})

describe('GET /staff/sessions/:sessionId', () => {
  it('when the booth has completed a session, then it answers the guests in order, each with its gallery-link messages', async () => {
    const { sets } = await seedEvent(app.orm)
    const [ada, grace] = [email('ada'), email('grace')]
    const registeredAt = new Date('2026-06-01T18:10:00.000Z')
    const sessionId = await register(
      sets[0]!.id,
      [
        { name: 'Ada King Lovelace', email: ada, phone: '(415) 555-2671' },
        { name: 'Grace', email: grace },
      ],
      registeredAt,
    )
    const completedAt = new Date('2026-06-01T18:12:30.000Z')
    await complete(sessionId, 2, completedAt)
    await copiesSettled(app, sessionId)

    const response = await api(`/staff/sessions/${sessionId}`)
    expect(response.status).toBe(200)
    const message = (channel: string, recipient: string) => ({
      id: expect.any(String),
      channel,
      recipient,
      status: 'pending',
      attempts: 0,
      lastError: null,
      providerMessageId: null,
      createdAt: expect.any(Number),
      sentAt: null,
      deliveredAt: null,
    })
    expect(await response.json()).toEqual({
      id: sessionId,
      setId: sets[0]!.id,
      label: 'Ada & Grace',
      status: 'completed',
      photoCount: 2,
      galleryUrl: galleryUrl(sessionId),
      createdAt: registeredAt.getTime(),
      completedAt: completedAt.getTime(),
      cancelledAt: null,
      guests: [
        {
          id: expect.any(String),
          name: 'Ada King Lovelace',
          firstName: 'Ada',
          lastName: 'King Lovelace',
          email: ada,
          phone: '+14155552671',
          messages: [message('email', ada), message('sms', '+14155552671')],
        },
        {
          id: expect.any(String),
          name: 'Grace',
          firstName: 'Grace',
          lastName: '',
          email: grace,
          phone: null,
          messages: [message('email', grace)],
        },
      ],
      copies: { queued: 0, ready: 2, failed: [], legacy: 0 },
    })
  })

  it('when the session is unknown, then 404 "no such session"', async () => {
    const response = await api('/staff/sessions/AAAAAAAAAAAAAAAAAAAAAA')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  })
})

describe('POST /staff/sessions/:sessionId/cancel', () => {
  it('when an active session is cancelled, then it answers the cancelled session and the booth can no longer complete it', async () => {
    const { sets } = await seedEvent(app.orm)
    const sessionId = await register(sets[0]!.id, [{ name: 'Ada', email: email('ada') }], new Date('2026-06-01T18:20:00.000Z'))
    clock = new Date('2026-06-01T18:21:00.000Z')
    const response = await api(`/staff/sessions/${sessionId}/cancel`, { method: 'POST' })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      id: sessionId,
      status: 'cancelled',
      photoCount: 0,
      completedAt: null,
      cancelledAt: clock.getTime(),
    })

    const completed = await postJson(
      `${app.url}/booth/sessions/${sessionId}/complete`,
      { photos: [] },
      {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${boothKey}` },
      },
    )
    expect(completed.status).toBe(409)
    expect(await completed.json()).toEqual({ error: 'session is already cancelled', code: 'session_not_active' })
  })

  it('when the session is completed, then 409 and it stays completed', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { status: 'completed', photos: 1 })
    const response = await api(`/staff/sessions/${session.id}/cancel`, { method: 'POST' })
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ error: 'session is already completed', code: 'session_not_active' })
    expect((await (await api(`/staff/sessions/${session.id}`)).json()).status).toBe('completed')
  })

  it('when the session is unknown, then 404 "no such session"', async () => {
    const response = await api('/staff/sessions/AAAAAAAAAAAAAAAAAAAAAA/cancel', { method: 'POST' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  })
})

describe('DELETE /staff/sessions/:sessionId', () => {
  it('when a live session is deleted, then its rows and stored photos are gone, and its guests’ customers unless they have another session', async () => {
    const { sets } = await seedEvent(app.orm)
    const [ada, bob] = [email('ada'), email('bob')]
    const at = new Date('2026-06-01T18:30:00.000Z')
    const sessionId = await register(
      sets[0]!.id,
      [
        { name: 'Ada', email: ada },
        { name: 'Bob', email: bob },
      ],
      at,
    )
    // Bob comes back for another session: his customer outlives this one.
    const kept = await register(sets[0]!.id, [{ name: 'Bob', email: bob }], at)
    await complete(sessionId, 2, at)
    await copiesSettled(app, sessionId)
    expect((await postJson(`${app.url}/track`, { kind: 'view', sessionId })).status).toBe(204)
    const { photos } = await (await fetch(`${app.url}/gallery/${sessionId}`)).json()
    expect((await fetch(`${app.url}/gallery/${sessionId}/photos/${photos[0].id}/download`)).status).toBe(200)
    if (app.config.storage.kind !== 'local') throw new Error('this test needs the local bucket')
    const folder = join(app.config.storage.root, 'sessions', sessionId)
    // The two uploads, and their copies: each photo's full-size and display copies, the link preview.
    const entries = await readdir(folder)
    expect(entries.filter((name) => name.endsWith('.jpg'))).toHaveLength(2)
    expect(entries.filter((name) => !name.endsWith('.jpg'))).toEqual(['copies'])
    expect(await readdir(join(folder, 'copies'))).toHaveLength(5)

    const rowsOf = async () => {
      const [rows] = await app.orm.em.fork().execute<Record<string, number>[]>(
        `select (select count(*)::int from session where id = ?) as session,
                (select count(*)::int from session_guest where session_id = ?) as session_guest,
                (select count(*)::int from photo where session_id = ?) as photo,
                (select count(*)::int from outbox_message where session_id = ?) as outbox_message,
                (select count(*)::int from tracking_event where session_id = ?) as tracking_event,
                (select count(*)::int from storage_deletion where prefix = ?) as storage_deletion`,
        [...Array<string>(5).fill(sessionId), `sessions/${sessionId}/`],
      )
      return rows
    }
    expect(await rowsOf()).toEqual({ session: 1, session_guest: 2, photo: 2, outbox_message: 2, tracking_event: 2, storage_deletion: 0 })

    const response = await api(`/staff/sessions/${sessionId}`, { method: 'DELETE' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ deleted: { sessions: 1, guests: 2, photos: 2 } })
    expect(await rowsOf()).toEqual({ session: 0, session_guest: 0, photo: 0, outbox_message: 0, tracking_event: 0, storage_deletion: 0 })
    await expect(readdir(folder)).rejects.toMatchObject({ code: 'ENOENT' })
    const customers = await app.orm.em.fork().execute<{ email: string }[]>('select email from customer where email in (?)', [[ada, bob]])
    expect(customers).toEqual([{ email: bob }])
    expect((await api(`/staff/sessions/${kept}`)).status).toBe(200)
  })

  it('when the session is unknown, then 404 "no such session" and nothing is queued for storage', async () => {
    const response = await api('/staff/sessions/AAAAAAAAAAAAAAAAAAAAAA', { method: 'DELETE' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
    const rows = await app.orm.em
      .fork()
      .execute('select prefix from storage_deletion where prefix = ?', ['sessions/AAAAAAAAAAAAAAAAAAAAAA/'])
    expect(rows).toEqual([])
  })
})
