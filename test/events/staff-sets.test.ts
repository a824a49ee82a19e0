import type { ErrorCode } from '@photobooth/sdk/contract'
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { expectInvalid, postJson, seedEvent, seedSession, startTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'

let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

const api = (path: string, init?: { method?: string; body?: unknown }) => staffFetch(app, staff, path, init)
const createSet = (eventId: string, body: unknown) => api(`/staff/events/${eventId}/sets`, { method: 'POST', body })
const updateSet = (setId: string, body: unknown) => api(`/staff/sets/${setId}`, { method: 'PATCH', body })
const removeSet = (setId: string, query = '') => api(`/staff/sets/${setId}${query}`, { method: 'DELETE' })
const staffEvent = async (eventId: string) => (await api(`/staff/events/${eventId}`)).json()

async function setRows(eventId: string): Promise<{ slug: string; name: string }[]> {
  return app.orm.em.fork().execute('select slug, name from event_set where event_id = ? order by slug', [eventId])
}

async function expectError(response: Response, status: number, error: string, code: ErrorCode) {
  expect(response.status).toBe(status)
  expect(await response.json()).toEqual({ error, code })
}

describe('POST /staff/events/:eventId/sets', () => {
  it('when the set is new, then 201 with its kiosk URL, which opens the kiosk, and the event lists it last', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 1 })
    const before = Date.now()
    const response = await createSet(event.id, { slug: 'mirror-booth', name: ' Mirror Booth ' })
    expect(response.status).toBe(201)
    const created = await response.json()
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      slug: 'mirror-booth',
      name: 'Mirror Booth',
      createdAt: expect.any(Number),
      kioskUrl: `${app.config.publicUrl}/kiosk/${event.slug}/mirror-booth`,
    })
    expect(created.createdAt).toBeGreaterThanOrEqual(before)
    expect(created.createdAt).toBeLessThanOrEqual(Date.now())

    // The kiosk app at kioskUrl loads its set from the kiosk context.
    const kiosk = await fetch(`${app.config.publicUrl}/events/${event.slug}/sets/mirror-booth`)
    expect(kiosk.status).toBe(200)
    expect(await kiosk.json()).toEqual({
      set: { id: created.id, slug: 'mirror-booth', name: 'Mirror Booth' },
      event: { id: event.id, slug: event.slug, name: event.name, phoneCountry: 'US', listGuestsByDefault: true },
    })
    expect((await staffEvent(event.id)).sets.map((set: { id: string }) => set.id)).toEqual([sets[0]!.id, created.id])
    expect((await staffEvent(event.id)).sets[1]).toEqual(created)
  })

  it('when the slug is taken in the event, then 409 and nothing is written; another event may use it', async () => {
    const { event } = await seedEvent(app.orm, { sets: 1 })
    await expectError(
      await createSet(event.id, { slug: 'set-1', name: 'Again' }),
      409,
      'The event already has a set with the slug set-1',
      'slug_taken',
    )
    expect(await setRows(event.id)).toEqual([{ slug: 'set-1', name: 'Set 1' }])

    const other = await seedEvent(app.orm, { sets: 0 })
    expect((await createSet(other.event.id, { slug: 'set-1', name: 'Elsewhere' })).status).toBe(201)
  })

  it('when the body is invalid, then 400 in the validator shape and nothing is written', async () => {
    const { event } = await seedEvent(app.orm, { sets: 0 })
    await expectInvalid(await createSet(event.id, { slug: 'Photo Wall', name: 'Photo Wall' }), [['slug']])
    await expectInvalid(await createSet(event.id, { slug: 'photo-wall', name: '' }), [['name']])
    await expectInvalid(await createSet(event.id, { slug: 'photo-wall', name: 'Photo Wall', event: 'x' }), [[]])
    await expectInvalid(await createSet(event.id, {}), [['slug'], ['name']])
    expect(await setRows(event.id)).toEqual([])
  })

  it('when the event is unknown, then 404 "no such event"', async () => {
    await expectError(
      await createSet('AAAAAAAAAAAAAAAAAAAAAA', { slug: 'photo-wall', name: 'Photo Wall' }),
      404,
      'no such event',
      'no_such_event',
    )
  })

  it('when KIOSK_URL is a template, then kiosk URLs are made from it', async () => {
    const custom = await startTestServer({ kioskUrl: 'https://kiosk.example.com/e/{event}/s/{set}?mode=kiosk' })
    try {
      const { event } = await seedEvent(custom.orm, { sets: 0 })
      const response = await staffFetch(custom, await signedInStaff(custom), `/staff/events/${event.id}/sets`, {
        method: 'POST',
        body: { slug: 'photo-wall', name: 'Photo Wall' },
      })
      expect((await response.json()).kioskUrl).toBe(`https://kiosk.example.com/e/${event.slug}/s/photo-wall?mode=kiosk`)
    } finally {
      await custom.stop()
    }
  })
})

describe('PATCH /staff/sets/:setId', () => {
  it('when the name is given, then only the name changes', async () => {
    const { event } = await seedEvent(app.orm, { sets: 1 })
    const [set] = (await staffEvent(event.id)).sets
    const response = await updateSet(set.id, { name: 'Photo Wall' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ...set, name: 'Photo Wall' })
  })

  it('when the slug changes, then the kiosk URL follows it and the old one no longer opens the kiosk', async () => {
    const { event } = await seedEvent(app.orm, { sets: 1 })
    const [set] = (await staffEvent(event.id)).sets
    const response = await updateSet(set.id, { slug: 'photo-wall', name: 'Photo Wall' })
    expect(response.status).toBe(200)
    const updated = await response.json()
    expect(updated).toEqual({
      ...set,
      slug: 'photo-wall',
      name: 'Photo Wall',
      kioskUrl: `${app.config.publicUrl}/kiosk/${event.slug}/photo-wall`,
    })
    const contextOf = (setSlug: string) => fetch(`${app.config.publicUrl}/events/${event.slug}/sets/${setSlug}`)
    expect((await contextOf('photo-wall')).status).toBe(200)
    expect((await contextOf(set.slug)).status).toBe(404)
  })

  it("when the slug is another set's of the event, then 409 and the set is unchanged", async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    await expectError(await updateSet(sets[1]!.id, { slug: 'set-1' }), 409, 'The event already has a set with the slug set-1', 'slug_taken')
    expect(await setRows(event.id)).toEqual([
      { slug: 'set-1', name: 'Set 1' },
      { slug: 'set-2', name: 'Set 2' },
    ])
  })

  it('when the body is empty or invalid, then 400 and the set is unchanged', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 1 })
    await expectInvalid(await updateSet(sets[0]!.id, {}), [[]])
    await expectInvalid(await updateSet(sets[0]!.id, { slug: '-x-' }), [['slug']])
    await expectInvalid(await updateSet(sets[0]!.id, { name: 'New', eventId: event.id }), [[]])
    expect(await setRows(event.id)).toEqual([{ slug: 'set-1', name: 'Set 1' }])
  })

  it('when the set is unknown, then 404 "no such set"', async () => {
    await expectError(await updateSet('AAAAAAAAAAAAAAAAAAAAAA', { name: 'Photo Wall' }), 404, 'no such set', 'no_such_set')
  })
})

describe('DELETE /staff/sets/:setId', () => {
  it('when the set has an active session, then 409 and nothing is deleted, unless force=true; the other sets keep theirs', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    await seedSession(app.orm, sets[0]!.id, { status: 'active' })
    await seedSession(app.orm, sets[0]!.id, { status: 'cancelled' })
    await seedSession(app.orm, sets[1]!.id, { status: 'completed', photos: 4 })
    const before = await staffEvent(event.id)

    await expectError(
      await removeSet(sets[0]!.id),
      409,
      'The set has 1 active session; pass force=true to delete it anyway',
      'active_sessions',
    )
    expect(await staffEvent(event.id)).toEqual(before)

    const forced = await removeSet(sets[0]!.id, '?force=true')
    expect(forced.status).toBe(200)
    expect(await forced.json()).toEqual({ deleted: { sessions: 2, guests: 0, photos: 0 } })
    expect(await staffEvent(event.id)).toEqual({
      ...before,
      sets: [before.sets[1]],
      counts: { sessions: { active: 0, completed: 1, cancelled: 0 }, guests: 0, photos: 4, listed: 1 },
    })
  })

  it("when a set is deleted, then its sessions, guests, photos, messages, counts and stored photos are gone, and so is its only guest's customer", async () => {
    const ada = `ada.${randomBytes(4).toString('hex')}@example.org`
    const live = await makeLiveGallery(app, { guests: [{ name: 'Ada Lovelace', email: ada }] })
    const [place] = await app.orm.em
      .fork()
      .execute<{ event_id: string; set_id: string }[]>(
        'select st.event_id, st.id as set_id from session s join event_set st on st.id = s.set_id where s.id = ?',
        [live.sessionId],
      )
    const { event_id: eventId, set_id: setId } = place!
    expect((await postJson(`${app.url}/track`, { kind: 'view', sessionId: live.sessionId })).status).toBe(204)
    if (app.config.storage.kind !== 'local') throw new Error('this test needs the local bucket')
    const photos = join(app.config.storage.root, 'sessions', live.sessionId)
    // The three uploads, and the folder of their copies.
    await copiesSettled(app, live.sessionId)
    expect((await readdir(photos)).filter((name) => name.endsWith('.jpg'))).toHaveLength(3)
    expect(await readdir(join(photos, 'copies'))).not.toEqual([])
    const before = await staffEvent(eventId)

    const rowsOf = async () => {
      const [rows] = await app.orm.em.fork().execute<Record<string, number>[]>(
        `select (select count(*)::int from event_set where id = ?) as event_set,
                (select count(*)::int from session where id = ?) as session,
                (select count(*)::int from session_guest where session_id = ?) as session_guest,
                (select count(*)::int from photo where session_id = ?) as photo,
                (select count(*)::int from outbox_message where session_id = ?) as outbox_message,
                (select count(*)::int from tracking_event where session_id = ?) as tracking_event,
                (select count(*)::int from customer where email = ?) as customer`,
        [setId, ...Array<string>(5).fill(live.sessionId), ada],
      )
      return rows
    }
    expect(await rowsOf()).toEqual({
      event_set: 1,
      session: 1,
      session_guest: 1,
      photo: 3,
      outbox_message: 1,
      tracking_event: 1,
      customer: 1,
    })

    const response = await removeSet(setId)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ deleted: { sessions: 1, guests: 1, photos: 3 } })
    expect(await rowsOf()).toEqual({
      event_set: 0,
      session: 0,
      session_guest: 0,
      photo: 0,
      outbox_message: 0,
      tracking_event: 0,
      customer: 0,
    })
    await expect(readdir(photos)).rejects.toMatchObject({ code: 'ENOENT' })
    expect(await staffEvent(eventId)).toEqual({
      ...before,
      sets: [],
      counts: { sessions: { active: 0, completed: 0, cancelled: 0 }, guests: 0, photos: 0, listed: 0 },
    })
  })

  it('when the set is unknown, then 404 "no such set"', async () => {
    await expectError(await removeSet('AAAAAAAAAAAAAAAAAAAAAA'), 404, 'no such set', 'no_such_set')
  })
})
