import { randomBytes } from 'node:crypto'

import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, withTestServer, registerGuests } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

/** The service's clock, which dates registrations and tracking rows: each happens when the test says. */
let clock = new Date()
const app = withTestServer({}, { now: () => clock })
let staff: StaffSession
let booth: PhotoBoothClient
beforeAll(async () => {
  staff = await signedInStaff(app)
  booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
})

const at = (time: string) => new Date(`2026-06-01T${time}Z`)
const hour = (time: string) => at(time).getTime()
const email = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.org`

async function stats(path: string) {
  const response = await staffFetch(app, staff, path)
  return { status: response.status, body: await response.json() }
}

async function register(setId: string, guests: { name: string; email: string }[], time: string): Promise<string> {
  clock = at(time)
  return registerGuests(app, setId, guests)
}

/** A view or share, as a gallery page sends it: a text/plain beacon. */
async function beacon(time: string, body: Record<string, string>) {
  clock = at(time)
  const response = await fetch(`${app.url}/track`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(204)
}

async function download(time: string, path: string) {
  clock = at(time)
  const response = await fetch(`${app.url}${path}`)
  expect(response.status).toBe(200)
  await response.arrayBuffer()
}

const NO_SHARES = { total: 0, facebook: 0, instagram: 0, tiktok: 0, copy: 0, native: 0 }
const NOTHING = { views: 0, shares: NO_SHARES, downloads: 0, zips: 0, guests: 0, messages: { pending: 0, sent: 0, failed: 0 } }

describe('staff statistics', () => {
  /**
   * 18:00–19:00 two registrations, a completion, two views (a gallery's, the event page's) and a share;
   * nothing from 19:00; 20:00–21:00 a download, a zip, a view, two shares and a registration, cancelled.
   */
  it('when an event has sessions and tracked activity over three hours, then the event and session numbers are exact, the empty hour included', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const live = await register(
      setId,
      [
        { name: 'Ada', email: email('ada') },
        { name: 'Grace', email: email('grace') },
      ],
      '18:10:00',
    )
    await register(setId, [{ name: 'Alan', email: email('alan') }], '18:20:00')
    clock = at('18:30:00')
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: live }, body: { count: 1 } })
    expect((await fetch(uploads[0]!.url, { method: 'PUT', headers: uploads[0]!.headers, body: makeJpeg(16, 12) })).status).toBe(200)
    const { photos } = await booth.booth.complete({ params: { sessionId: live }, body: { photos: [uploads[0]!.key] } })
    await beacon('18:40:00', { kind: 'view', sessionId: live })
    await beacon('18:41:00', { kind: 'view', eventId: event.id })
    await beacon('18:45:00', { kind: 'share', sessionId: live, channel: 'facebook' })
    await download('20:05:00', `/gallery/${live}/photos/${photos[0]!.id}/download`)
    await download('20:06:00', `/gallery/${live}/zip`)
    await beacon('20:07:00', { kind: 'view', sessionId: live })
    await beacon('20:08:00', { kind: 'share', sessionId: live, channel: 'copy' })
    await beacon('20:59:59.999', { kind: 'share', sessionId: live, channel: 'copy' })
    const cancelled = await register(setId, [{ name: 'Bea', email: email('bea') }], '20:15:00')
    expect((await staffFetch(app, staff, `/staff/sessions/${cancelled}/cancel`, { method: 'POST' })).status).toBe(200)
    // The completion queued two emails: one was sent, one refused; nothing waits.
    await app.orm.em
      .fork()
      .execute(`update outbox_message set status = case when recipient like 'ada.%' then 'sent' else 'failed' end where session_id = ?`, [
        live,
      ])

    const shares = { ...NO_SHARES, total: 3, facebook: 1, copy: 2 }
    const messages = { pending: 0, sent: 1, failed: 1 }
    expect(await stats(`/staff/sessions/${live}/stats`)).toEqual({
      status: 200,
      body: { views: 2, shares, downloads: 1, zips: 1, guests: 2, messages },
    })
    expect(await stats(`/staff/events/${event.id}/stats`)).toEqual({
      status: 200,
      body: {
        views: 3,
        shares,
        downloads: 1,
        zips: 1,
        guests: 4,
        messages,
        sessions: { active: 1, completed: 1, cancelled: 1 },
        hourly: [
          { hour: hour('18:00:00'), views: 2, shares: 1, downloads: 0, zips: 0, sessions: 2 },
          { hour: hour('19:00:00'), views: 0, shares: 0, downloads: 0, zips: 0, sessions: 0 },
          { hour: hour('20:00:00'), views: 1, shares: 2, downloads: 1, zips: 1, sessions: 1 },
        ],
      },
    })
  })

  it('when tracking rows come hours after the last registration, then the series runs to them, hour by hour', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const sessionId = await register(sets[0]!.id, [{ name: 'Ada', email: email('ada') }], '22:30:00')
    // Written as the database holds them: a gallery still viewed at 01:00 the next day.
    await app.orm.em
      .fork()
      .execute(`insert into tracking_event (kind, event_id, session_id, created_at) values ('view', ?, ?, ?), ('view', ?, null, ?)`, [
        event.id,
        sessionId,
        new Date('2026-06-02T01:00:00Z'),
        event.id,
        new Date('2026-06-02T01:59:59.999Z'),
      ])
    const { body } = await stats(`/staff/events/${event.id}/stats`)
    expect(body.hourly).toEqual([
      { hour: hour('22:00:00'), views: 0, shares: 0, downloads: 0, zips: 0, sessions: 1 },
      { hour: hour('23:00:00'), views: 0, shares: 0, downloads: 0, zips: 0, sessions: 0 },
      { hour: Date.parse('2026-06-02T00:00:00Z'), views: 0, shares: 0, downloads: 0, zips: 0, sessions: 0 },
      { hour: Date.parse('2026-06-02T01:00:00Z'), views: 2, shares: 0, downloads: 0, zips: 0, sessions: 0 },
    ])
    expect(body.views).toBe(2)
  })

  it('when an event or a session has nothing yet, then every number is 0 and the series is empty', async () => {
    const { event, sets } = await seedEvent(app.orm)
    expect(await stats(`/staff/events/${event.id}/stats`)).toEqual({
      status: 200,
      body: { ...NOTHING, sessions: { active: 0, completed: 0, cancelled: 0 }, hourly: [] },
    })
    const sessionId = await register(sets[0]!.id, [{ name: 'Ada', email: email('ada') }], '18:00:00')
    expect(await stats(`/staff/sessions/${sessionId}/stats`)).toEqual({ status: 200, body: { ...NOTHING, guests: 1 } })
  })

  it('when the event or the session is unknown, then 404', async () => {
    expect(await stats('/staff/events/AAAAAAAAAAAAAAAAAAAAAA/stats')).toEqual({
      status: 404,
      body: { error: 'no such event', code: 'no_such_event' },
    })
    expect(await stats('/staff/sessions/AAAAAAAAAAAAAAAAAAAAAA/stats')).toEqual({
      status: 404,
      body: { error: 'no such session', code: 'no_such_session' },
    })
  })
})
