/**
 * Retention, on an injected clock: an event's guests' data goes when its time is up (photos from
 * storage, contacts, customers no other session needs), the event keeps anonymous counts and its
 * views stay counted, cancelled sessions go a day after, staff can lengthen or shorten the time
 * before it runs, and two instances purging at once take each session once.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'

import { createLogger } from '@photobooth/server/logger'
import { purgeExpired } from '@photobooth/server/modules/retention/retention.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { postJson, registerGuests, seedSession, startTestServer, type TestServer } from '../support/harness.js'
import { findEverywhere } from '../support/database-scan.js'
import { scratchDatabases } from '../support/databases.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const DAY = 86_400_000
/** The run's "now", read by the service: the events are placed around it. */
const now = Date.parse('2026-12-01T12:00:00Z')
const clock = () => new Date(now)

const databases = scratchDatabases('purge')
let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  // A database of its own: the purge looks at every event, and other files' events started long ago.
  app = await startTestServer({ databaseUrl: await databases.create() }, { now: clock })
  staff = await signedInStaff(app)
})
afterAll(async () => {
  await app?.stop()
  await databases.dropAll()
})

const logger = createLogger({ silent: true })
const purge = () =>
  purgeExpired({
    orm: app.orm,
    storage: app.storage,
    config: app.config,
    logger,
    now: clock,
    defaultDays: app.config.retention.defaultDays,
  })

/** A public event started `daysAgo` before the clock, with one set, made by staff. */
async function event(daysAgo: number, settings: Record<string, unknown> = {}) {
  const slug = `purge-${Math.random().toString(36).slice(2, 10)}`
  const created = await (
    await staffFetch(app, staff, '/staff/events', {
      method: 'POST',
      body: { slug, name: 'Purge Party', startAt: now - daysAgo * DAY, isPrivate: false, ...settings },
    })
  ).json()
  const set = await (
    await staffFetch(app, staff, `/staff/events/${created.id}/sets`, { method: 'POST', body: { slug: 'booth', name: 'Booth' } })
  ).json()
  return { id: created.id as string, slug, setId: set.id as string }
}

/** Registered when the event started: the sessions a real event's guests made on the day. */
const onTheDay = (setId: string, daysAgo: number) =>
  rows('update session set created_at = ? where set_id = ?', [new Date(now - daysAgo * DAY), setId])

const staffEvent = async (id: string) => (await staffFetch(app, staff, `/staff/events/${id}`)).json()
const rows = async (sql: string, params: unknown[]) => app.orm.em.fork().execute<Record<string, unknown>[]>(sql, params)

describe('the purge', () => {
  it("when an event's retention runs out, then its galleries, photos, guests and customers are gone, its counts and views stay, and a younger event is untouched", async () => {
    const old = await event(91)
    const young = await event(89)
    const gallery = await makeLiveGallery(app, { setId: old.setId, guests: [{ name: 'Old Olga', email: `olga.${now}@example.org` }] })
    const kept = await makeLiveGallery(app, { setId: young.setId, guests: [{ name: 'Young Yara', email: `yara.${now}@example.org` }] })
    await Promise.all([copiesSettled(app, gallery.sessionId), copiesSettled(app, kept.sessionId)])
    await Promise.all([onTheDay(old.setId, 91), onTheDay(young.setId, 89)])
    expect(
      (await postJson(`${app.url}/track`, { kind: 'view', sessionId: gallery.sessionId }, { headers: { 'content-type': 'text/plain' } }))
        .status,
    ).toBe(204)
    expect((await staffEvent(old.id)).expiresAt).toBe(now - 91 * DAY + 90 * DAY)

    expect(await purge()).toBe(1)

    expect((await fetch(`${app.url}/gallery/${gallery.sessionId}`)).status).toBe(404)
    const page = await fetch(`${app.url}/g/${gallery.sessionId}`)
    expect(page.status).toBe(404)
    expect(await page.text()).toContain('may have expired')
    if (app.config.storage.kind !== 'local') throw new Error('this test needs the local bucket')
    expect(existsSync(join(app.config.storage.root, 'sessions', gallery.sessionId))).toBe(false)
    expect(await rows('select id from customer where email = ?', [`olga.${now}@example.org`])).toEqual([])
    const after = await staffEvent(old.id)
    expect(after.counts).toEqual({ sessions: { active: 0, completed: 0, cancelled: 0 }, guests: 0, photos: 0, listed: 0 })
    expect(after.purged).toEqual({ sessions: 1, guests: 1, photos: 3 })
    // The view is still counted for the event, tied to no session.
    expect(await rows('select session_id from tracking_event where event_id = ?', [old.id])).toEqual([{ session_id: null }])
    expect(await (await staffFetch(app, staff, `/staff/events/${old.id}/stats`)).json()).toMatchObject({ views: 1 })

    expect((await fetch(`${app.url}/gallery/${kept.sessionId}`)).status).toBe(200)
    expect(await purge()).toBe(0)
  })

  it('when a guest gave a phone only at the expired event, then after the purge nothing of that phone is left anywhere, and the people search no longer finds her by it', async () => {
    const expired = await event(91)
    const current = await event(10)
    const email = `rhea.${Math.random().toString(36).slice(2, 8)}@example.org`
    const typed = '(415) 555-0199'
    await registerGuests(app, expired.setId, [{ name: 'Rhea Expired', email, phone: typed }])
    await registerGuests(app, current.setId, [{ name: 'Rhea Current', email }])
    await onTheDay(expired.setId, 91)
    const before = await (await staffFetch(app, staff, `/staff/people?phone=${encodeURIComponent('+14155550199')}`)).json()
    expect(before.people).toHaveLength(1)

    expect(await purge()).toBeGreaterThanOrEqual(1)

    for (const needle of ['+14155550199', '4155550199', typed]) expect(await findEverywhere(app.orm, needle)).toEqual([])
    expect((await (await staffFetch(app, staff, `/staff/people?phone=${encodeURIComponent('+14155550199')}`)).json()).people).toEqual([])
    const [person] = (await (await staffFetch(app, staff, `/staff/people?email=${encodeURIComponent(email)}`)).json()).people
    const exported = await (await staffFetch(app, staff, `/staff/people/${person.id}/export`)).json()
    expect(exported.person).toMatchObject({ email, phone: null, name: 'Rhea Current' })
  })

  it("when staff lengthen an event's retention before it runs, then it is kept; shortened, it goes", async () => {
    const longer = await event(120)
    const shorter = await event(10)
    const kept = await registerGuests(app, longer.setId, [{ name: 'Lena', email: `lena.${now}@example.org` }])
    const gone = await registerGuests(app, shorter.setId, [{ name: 'Sami', email: `sami.${now}@example.org` }])
    await Promise.all([onTheDay(longer.setId, 120), onTheDay(shorter.setId, 10)])
    expect((await staffFetch(app, staff, `/staff/events/${longer.id}`, { method: 'PATCH', body: { retentionDays: 365 } })).status).toBe(200)
    const changed = await staffFetch(app, staff, `/staff/events/${shorter.id}`, { method: 'PATCH', body: { retentionDays: 7 } })
    expect(await changed.json()).toMatchObject({ retentionDays: 7, expiresAt: now - 3 * DAY })

    expect(await purge()).toBe(1)
    expect(await rows('select id from session where id in (?)', [[kept, gone]])).toEqual([{ id: kept }])
  })

  it('when guests register today at an event that started long ago (entered after the fact), then their session is kept for the retention after its registration', async () => {
    const late = await event(400)
    const today = await registerGuests(app, late.setId, [{ name: 'Tess', email: `tess.${now}@example.org` }])
    expect(await purge()).toBe(0)
    expect(await rows('select id from session where id = ?', [today])).toEqual([{ id: today }])
  })

  it('when a session was cancelled more than a day ago, then it goes; cancelled an hour ago, it stays', async () => {
    const current = await event(1)
    const [early, late] = [
      await registerGuests(app, current.setId, [{ name: 'Early', email: `early.${now}@example.org` }]),
      await registerGuests(app, current.setId, [{ name: 'Late', email: `late.${now}@example.org` }]),
    ]
    await rows(`update session set status = 'cancelled', cancelled_at = ? where id = ?`, [new Date(now - DAY - 60_000), early])
    await rows(`update session set status = 'cancelled', cancelled_at = ? where id = ?`, [new Date(now - 3_600_000), late])
    expect(await purge()).toBe(1)
    expect(await rows('select id from session where id in (?)', [[early, late]])).toEqual([{ id: late }])
    expect((await staffEvent(current.id)).purged).toEqual({ sessions: 1, guests: 1, photos: 0 })
  })

  it('when two instances purge at once, then each expired session is purged once and counted once', async () => {
    const old = await event(200)
    // Sessions without guests: 230 registrations would meet the kiosk route's rate limit.
    for (let i = 0; i < 230; i++)
      await seedSession(app.orm, old.setId, { status: 'active', photos: 0, createdAt: new Date(now - 200 * DAY) })
    const other = await startTestServer({ databaseUrl: app.config.databaseUrl }, { now: clock })
    try {
      const [first, second] = await Promise.all([
        purge(),
        purgeExpired({ orm: other.orm, storage: other.storage, config: other.config, logger, now: clock, defaultDays: 90 }),
      ])
      expect(first + second).toBe(230)
      expect((await staffEvent(old.id)).purged).toEqual({ sessions: 230, guests: 0, photos: 0 })
    } finally {
      await other.stop()
    }
  })
})

describe('the purge when the instance stops', () => {
  it('when its stop signal is given, then it starts no further batch: what is due waits for the next pass', async () => {
    const old = await event(300)
    const due = await seedSession(app.orm, old.setId, { status: 'active', photos: 0, createdAt: new Date(now - 300 * DAY) })
    const stopped = AbortSignal.abort()
    expect(
      await purgeExpired({ orm: app.orm, storage: app.storage, config: app.config, logger, now: clock, defaultDays: 90, signal: stopped }),
    ).toBe(0)
    expect(await rows('select id from session where id = ?', [due.id])).toEqual([{ id: due.id }])
    expect(await purge()).toBe(1)
  })
})

describe('the purge worker', () => {
  it('when the service runs with its defaults, then it purges on its own, without being asked', async () => {
    const databaseUrl = await databases.create()
    const own = await startTestServer({ databaseUrl }, { now: clock })
    let session: string
    try {
      const setId = (
        await own.orm.em
          .fork()
          .execute<{ id: string }[]>(
            `insert into event (id, slug, name, start_at) values ('purgeworkerevent0000001', 'purge-worker', 'Old', ?) returning id`,
            [new Date(now - 400 * DAY)],
          )
      )[0]!.id
      await own.orm.em
        .fork()
        .execute(`insert into event_set (id, event_id, slug, name) values ('purgeworkerset00000001', ?, 'booth', 'Booth')`, [setId])
      session = await registerGuests(own, 'purgeworkerset00000001', [{ name: 'Wanda', email: `wanda.${now}@example.org` }])
      await own.orm.em.fork().execute('update session set created_at = ? where id = ?', [new Date(now - 400 * DAY), session])
    } finally {
      await own.stop()
    }
    // The same database, the service with its default settings for the purge: on, every 10 minutes, and at start.
    const defaults = await startTestServer({ databaseUrl, retention: { ...app.config.retention, work: true } }, { now: clock })
    try {
      const { until } = await import('../support/until.js')
      await until(
        () => defaults.orm.em.fork().execute<{ id: string }[]>('select id from session where id = ?', [session]),
        (found) => found.length === 0,
      )
    } finally {
      await defaults.stop()
    }
  })
})
