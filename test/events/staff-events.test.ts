import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { expectInvalid, postJson, seedEvent, seedSession, uniqueSlug, type TestServer } from '../support/harness.js'
import { startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'

let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

const api = (path: string, init?: { method?: string; body?: unknown }) => staffFetch(app, staff, path, init)
const createEvent = (body: unknown) => api('/staff/events', { method: 'POST', body })
const email = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.org`

/** When a row was created, as the database holds it, in epoch milliseconds. */
async function createdAt(table: 'event' | 'event_set', id: string): Promise<number> {
  const [row] = await app.orm.em
    .fork()
    .execute<{ at: number }[]>(`select floor(extract(epoch from created_at) * 1000)::float8 as at from ${table} where id = ?`, [id])
  return row!.at
}

async function eventRows(slug: string): Promise<number> {
  const [row] = await app.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from event where slug = ?', [slug])
  return row!.n
}

const NO_COUNTS = { sessions: { active: 0, completed: 0, cancelled: 0 }, guests: 0, photos: 0, listed: 0 }
/** What an event created without them answers for its phones' country, privacy notice and listing. */
const EVENT_DEFAULTS = {
  phoneCountry: null,
  privacyNotice: null,
  listGuestsByDefault: true,
  retentionDays: null,
  language: null,
  kioskIdleSeconds: null,
  branding: {},
  purged: { sessions: 0, guests: 0, photos: 0 },
}
/** When an event that started at `startAt` is purged with the default retention (RETENTION_DAYS, 90). */
const expiresAt = (startAt: number) => startAt + 90 * 86_400_000

describe('GET /staff/events', () => {
  it('when events have sets and sessions, then each answers with its sets oldest first, kiosk URLs and counts, newest start first', async () => {
    const older = await seedEvent(app.orm, { sets: 2, startAt: new Date('2026-06-01T18:00:00Z') })
    const newer = await seedEvent(app.orm, { sets: 0, startAt: new Date('2026-07-01T18:00:00Z'), isPrivate: true })
    const [first, second] = older.sets
    const registered = await postJson(`${app.url}/sets/${first!.id}/sessions`, {
      guests: [
        { name: 'Ada', email: email('ada') },
        { name: 'Bob', email: email('bob') },
      ],
    })
    expect(registered.status).toBe(201)
    await seedSession(app.orm, first!.id, { status: 'completed', photos: 3 })
    await seedSession(app.orm, second!.id, { status: 'completed', photos: 2 })
    await seedSession(app.orm, second!.id, { status: 'cancelled' })

    const response = await api('/staff/events')
    expect(response.status).toBe(200)
    const { events } = await response.json()
    const listed = events.filter((event: { id: string }) => event.id === older.event.id || event.id === newer.event.id)
    expect(listed).toEqual([
      {
        id: newer.event.id,
        slug: newer.event.slug,
        name: 'Test Event',
        startAt: Date.parse('2026-07-01T18:00:00Z'),
        isPrivate: true,
        ...EVENT_DEFAULTS,
        expiresAt: expiresAt(Date.parse('2026-07-01T18:00:00Z')),
        createdAt: await createdAt('event', newer.event.id),
        sets: [],
        counts: NO_COUNTS,
      },
      {
        id: older.event.id,
        slug: older.event.slug,
        name: 'Test Event',
        startAt: Date.parse('2026-06-01T18:00:00Z'),
        isPrivate: false,
        ...EVENT_DEFAULTS,
        expiresAt: expiresAt(Date.parse('2026-06-01T18:00:00Z')),
        createdAt: await createdAt('event', older.event.id),
        sets: [
          {
            id: first!.id,
            slug: 'set-1',
            name: 'Set 1',
            createdAt: await createdAt('event_set', first!.id),
            kioskUrl: `${app.config.publicUrl}/kiosk/${older.event.slug}/set-1`,
          },
          {
            id: second!.id,
            slug: 'set-2',
            name: 'Set 2',
            createdAt: await createdAt('event_set', second!.id),
            kioskUrl: `${app.config.publicUrl}/kiosk/${older.event.slug}/set-2`,
          },
        ],
        counts: { sessions: { active: 1, completed: 2, cancelled: 1 }, guests: 2, photos: 5, listed: 2 },
      },
    ])
  })

  it('when more events exist, then the list still takes three queries: the events, their sets, their counts', async () => {
    const listQueries = async () => {
      // Not counted: the team's rules, which every staff request is checked against, read at most
      // every 5 s (staff/team.service.ts; on a loaded machine the request before may be that long ago).
      app.queries.length = 0
      expect((await api('/staff/events')).status).toBe(200)
      return app.queries.filter((sql) => !/\bteam_settings\b/.test(sql)).length
    }
    const { sets } = await seedEvent(app.orm, { sets: 2 })
    await seedSession(app.orm, sets[1]!.id, { photos: 1 })
    expect(await listQueries()).toBe(3)
    for (let i = 0; i < 5; i++) {
      const more = await seedEvent(app.orm, { sets: 2 })
      await seedSession(app.orm, more.sets[0]!.id, { photos: 1 })
    }
    expect(await listQueries()).toBe(3)
  })
})

describe('GET /staff/events/:eventId', () => {
  it('when the event exists, then it answers as the list does', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 1 })
    await seedSession(app.orm, sets[0]!.id, { status: 'active' })
    const response = await api(`/staff/events/${event.id}`)
    expect(response.status).toBe(200)
    const { events } = await (await api('/staff/events')).json()
    expect(await response.json()).toEqual(events.find((listed: { id: string }) => listed.id === event.id))
  })

  it('when the event is unknown, then 404 "no such event"', async () => {
    const response = await api('/staff/events/AAAAAAAAAAAAAAAAAAAAAA')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })
})

describe('POST /staff/events', () => {
  it('when the event is new, then 201 with the event, private by default, no sets and zero counts, and it is readable', async () => {
    const slug = uniqueSlug()
    const before = Date.now()
    const response = await createEvent({ slug, name: '  Summer Gala ', startAt: Date.parse('2026-08-01T17:00:00Z') })
    expect(response.status).toBe(201)
    const created = await response.json()
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      slug,
      name: 'Summer Gala',
      startAt: Date.parse('2026-08-01T17:00:00Z'),
      // A public event page is a choice: an event is private unless staff say otherwise.
      isPrivate: true,
      ...EVENT_DEFAULTS,
      expiresAt: expiresAt(Date.parse('2026-08-01T17:00:00Z')),
      createdAt: await createdAt('event', created.id),
      sets: [],
      counts: NO_COUNTS,
    })
    expect(created.createdAt).toBeGreaterThanOrEqual(before)
    expect(created.createdAt).toBeLessThanOrEqual(Date.now())
    expect(await (await api(`/staff/events/${created.id}`)).json()).toEqual(created)
  })

  it('when the event is private, then it is stored private and its public page answers 404', async () => {
    const slug = uniqueSlug()
    const response = await createEvent({ slug, name: 'Board Dinner', startAt: 0, isPrivate: true })
    expect(response.status).toBe(201)
    expect((await response.json()).isPrivate).toBe(true)
    expect((await fetch(`${app.url}/gallery/events/${slug}`)).status).toBe(404)
  })

  it('when the slug is taken, then 409 names it and nothing is written', async () => {
    const slug = uniqueSlug()
    expect((await createEvent({ slug, name: 'First', startAt: 0 })).status).toBe(201)
    const response = await createEvent({ slug, name: 'Second', startAt: 0 })
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ error: `An event with the slug ${slug} already exists`, code: 'slug_taken' })
    expect(await eventRows(slug)).toBe(1)
  })

  it('when 10 creates of one slug race, then exactly one answers 201 and the others 409', async () => {
    const slug = uniqueSlug()
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => createEvent({ slug, name: `Race ${i}`, startAt: 0 })))
    expect(responses.map((response) => response.status).sort()).toEqual([201, ...Array<number>(9).fill(409)])
    expect(await eventRows(slug)).toBe(1)
  })

  it('when the body is invalid, then 400 in the validator shape and nothing is written', async () => {
    const slug = uniqueSlug()
    await expectInvalid(await createEvent({ slug: 'Not A Slug', name: 'Gala', startAt: 0 }), [['slug']])
    await expectInvalid(await createEvent({ slug, name: '   ', startAt: -1 }), [['name'], ['startAt']])
    await expectInvalid(await createEvent({ slug, name: 'Gala', startAt: 0, sets: [] }), [[]])
    await expectInvalid(await createEvent({}), [['slug'], ['name'], ['startAt']])
    // Past the year 9999 PostgreSQL has no timestamp for it (found by the fuzzer: it was a 500).
    await expectInvalid(await createEvent({ slug, name: 'Gala', startAt: 253_402_300_800_000 }), [['startAt']])
    await expectInvalid(await createEvent({ slug, name: 'Gala', startAt: Number.MAX_SAFE_INTEGER }), [['startAt']])
    expect(await eventRows(slug)).toBe(0)
    expect((await createEvent({ slug, name: 'Gala', startAt: 253_402_300_799_999 })).status).toBe(201)
  })
})

describe('PATCH /staff/events/:eventId', () => {
  const update = (eventId: string, body: unknown) => api(`/staff/events/${eventId}`, { method: 'PATCH', body })

  it('when some fields are given, then only those change', async () => {
    const created = await (await createEvent({ slug: uniqueSlug(), name: 'Gala', startAt: 1_000 })).json()
    const renamed = await update(created.id, { name: 'Winter Gala' })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toEqual({ ...created, name: 'Winter Gala' })

    const slug = uniqueSlug()
    const moved = await update(created.id, { slug, startAt: 2_000, isPrivate: false })
    expect(moved.status).toBe(200)
    expect(await moved.json()).toEqual({
      ...created,
      name: 'Winter Gala',
      slug,
      startAt: 2_000,
      isPrivate: false,
      expiresAt: expiresAt(2_000),
    })
    expect(await (await api(`/staff/events/${created.id}`)).json()).toEqual({
      ...created,
      name: 'Winter Gala',
      slug,
      startAt: 2_000,
      isPrivate: false,
      expiresAt: expiresAt(2_000),
    })
  })

  it("when the new slug is another event's, then 409 and the event is unchanged", async () => {
    const taken = await (await createEvent({ slug: uniqueSlug(), name: 'Taken', startAt: 0 })).json()
    const created = await (await createEvent({ slug: uniqueSlug(), name: 'Mine', startAt: 0 })).json()
    const response = await update(created.id, { slug: taken.slug, name: 'Renamed' })
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ error: `An event with the slug ${taken.slug} already exists`, code: 'slug_taken' })
    expect(await (await api(`/staff/events/${created.id}`)).json()).toEqual(created)
  })

  it('when the body is empty or has unknown fields, then 400 and the event is unchanged', async () => {
    const created = await (await createEvent({ slug: uniqueSlug(), name: 'Gala', startAt: 0 })).json()
    await expectInvalid(await update(created.id, {}), [[]])
    await expectInvalid(await update(created.id, { name: 'New', sets: [] }), [[]])
    await expectInvalid(await update(created.id, { slug: 'UPPER' }), [['slug']])
    await expectInvalid(await update(created.id, { startAt: 253_402_300_800_000 }), [['startAt']])
    expect(await (await api(`/staff/events/${created.id}`)).json()).toEqual(created)
  })

  it('when the event is unknown, then 404 "no such event"', async () => {
    const response = await update('AAAAAAAAAAAAAAAAAAAAAA', { name: 'Gala' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })
})

describe('DELETE /staff/events/:eventId', () => {
  const remove = (eventId: string, query = '') => api(`/staff/events/${eventId}${query}`, { method: 'DELETE' })

  it('when the event has active sessions, then 409 and nothing is deleted, unless force=true', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    await seedSession(app.orm, sets[0]!.id, { status: 'active' })
    await seedSession(app.orm, sets[1]!.id, { status: 'active' })
    await seedSession(app.orm, sets[1]!.id, { status: 'completed', photos: 2 })
    const before = await (await api(`/staff/events/${event.id}`)).json()

    for (const query of ['', '?force=false']) {
      const refused = await remove(event.id, query)
      expect(refused.status).toBe(409)
      expect(await refused.json()).toEqual({
        error: 'The event has 2 active sessions; pass force=true to delete it anyway',
        code: 'active_sessions',
      })
    }
    expect(await (await api(`/staff/events/${event.id}`)).json()).toEqual(before)

    const forced = await remove(event.id, '?force=true')
    expect(forced.status).toBe(200)
    expect(await forced.json()).toEqual({ deleted: { sessions: 3, guests: 0, photos: 2 } })
    expect((await api(`/staff/events/${event.id}`)).status).toBe(404)
  })

  it('when the event has no sets, then it is deleted with nothing else', async () => {
    const { event } = await seedEvent(app.orm, { sets: 0 })
    const response = await remove(event.id)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ deleted: { sessions: 0, guests: 0, photos: 0 } })
    expect(await eventRows(event.slug)).toBe(0)
  })

  it('when an event is deleted, then its sets, sessions, guests, photos, messages, counts and stored photos are gone, and only customers left without a session', async () => {
    const cy = email('cy')
    // Cy attended another event too: her customer outlives this event.
    const elsewhere = await makeLiveGallery(app, { guests: [{ name: 'Cy Young', email: cy }] })
    const ada = email('ada')
    const live = await makeLiveGallery(app, {
      guests: [
        { name: 'Ada Lovelace', email: ada },
        { name: 'Cy Young', email: cy },
      ],
    })
    const [place] = await app.orm.em
      .fork()
      .execute<{ event_id: string }[]>('select st.event_id from session s join event_set st on st.id = s.set_id where s.id = ?', [
        live.sessionId,
      ])
    const { event_id: eventId } = place!
    const set = await api(`/staff/events/${eventId}/sets`, { method: 'POST', body: { slug: 'second', name: 'Second' } })
    const bea = email('bea')
    const queued = await (
      await postJson(`${app.url}/sets/${(await set.json()).id}/sessions`, { guests: [{ name: 'Bea', email: bea }] })
    ).json()
    for (const beacon of [
      { kind: 'view', sessionId: live.sessionId },
      { kind: 'view', eventId },
    ]) {
      expect((await postJson(`${app.url}/track`, beacon)).status).toBe(204)
    }
    if (app.config.storage.kind !== 'local') throw new Error('this test needs the local bucket')
    const photos = join(app.config.storage.root, 'sessions', live.sessionId)
    // The three uploads, and the folder of their copies.
    await copiesSettled(app, live.sessionId)
    expect((await readdir(photos)).filter((name) => name.endsWith('.jpg'))).toHaveLength(3)
    expect(await readdir(join(photos, 'copies'))).not.toEqual([])

    const rowsOf = async () => {
      const [rows] = await app.orm.em.fork().execute<Record<string, number>[]>(
        `select (select count(*)::int from event where id = ?) as event,
                (select count(*)::int from event_set where event_id = ?) as event_set,
                (select count(*)::int from session where id in (?)) as session,
                (select count(*)::int from session_guest where session_id in (?)) as session_guest,
                (select count(*)::int from photo where session_id in (?)) as photo,
                (select count(*)::int from outbox_message where session_id in (?)) as outbox_message,
                (select count(*)::int from tracking_event where event_id = ?) as tracking_event,
                (select count(*)::int from storage_deletion where prefix in (?)) as storage_deletion`,
        [
          eventId,
          eventId,
          ...Array<string[]>(4).fill([live.sessionId, queued.id]),
          eventId,
          [`sessions/${live.sessionId}/`, `sessions/${queued.id}/`],
        ],
      )
      return rows
    }
    expect(await rowsOf()).toEqual({
      event: 1,
      event_set: 2,
      session: 2,
      session_guest: 3,
      photo: 3,
      outbox_message: 2,
      tracking_event: 2,
      storage_deletion: 0,
    })

    const response = await remove(eventId, '?force=true')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ deleted: { sessions: 2, guests: 3, photos: 3 } })
    expect(await rowsOf()).toEqual({
      event: 0,
      event_set: 0,
      session: 0,
      session_guest: 0,
      photo: 0,
      outbox_message: 0,
      tracking_event: 0,
      storage_deletion: 0,
    })
    await expect(readdir(photos)).rejects.toMatchObject({ code: 'ENOENT' })

    const customers = await app.orm.em
      .fork()
      .execute<{ email: string }[]>('select email from customer where email in (?) order by email', [[ada, bea, cy]])
    expect(customers).toEqual([{ email: cy }])
    expect((await fetch(`${app.url}/gallery/${elsewhere.sessionId}`)).status).toBe(200)
  })

  it('when the event is unknown, then 404 "no such event"', async () => {
    const response = await remove('AAAAAAAAAAAAAAAAAAAAAA')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })
})
