/**
 * Consent under the notice the guest read (issue 32): a registration may name the privacy-notice
 * version its kiosk showed (a kiosk that queued it offline, before staff changed the notice), and
 * each guest is recorded under it; a version the event never published is refused at its field and
 * changes nothing; without one, the event's current version is recorded, as before.
 */
import { randomBytes } from 'node:crypto'

import { beforeAll, describe, expect, it } from 'vitest'

import { countRows, expectInvalid, postJson, uniqueSlug, withTestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let staff: StaffSession
beforeAll(async () => {
  staff = await signedInStaff(app)
})

const notice = (version: string) => ({ version, text: `Our privacy notice, version ${version}.` })

async function eventWithNotice(version: string | undefined) {
  const created = await staffFetch(app, staff, '/staff/events', {
    method: 'POST',
    body: {
      slug: uniqueSlug(),
      name: 'Notice Gala',
      startAt: Date.parse('2026-06-01T18:00:00Z'),
      ...(version ? { privacyNotice: notice(version) } : {}),
    },
  })
  expect(created.status).toBe(201)
  const event = await created.json()
  const set = await (
    await staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'booth', name: 'Booth' } })
  ).json()
  return { event, set }
}

const changeNotice = async (eventId: string, body: unknown) =>
  expect((await staffFetch(app, staff, `/staff/events/${eventId}`, { method: 'PATCH', body })).status).toBe(200)

const register = (setId: string, extra: Record<string, unknown> = {}) =>
  postJson(`${app.url}/sets/${setId}/sessions`, {
    guests: [
      { name: 'Ada Lovelace', email: `ada.${randomBytes(4).toString('hex')}@example.org` },
      { name: 'Grace Hopper', phone: '(415) 555-2671' },
    ],
    ...extra,
  })

async function versionsOf(response: Response): Promise<(string | null)[]> {
  expect(response.status).toBe(201)
  const { id } = await response.json()
  const rows = await app.orm.em
    .fork()
    .execute<{ privacy_notice_version: string | null }[]>(
      'select privacy_notice_version from session_guest where session_id = ? order by position',
      [id],
    )
  return rows.map((row) => row.privacy_notice_version)
}

describe('the privacy-notice version a registration names', () => {
  it('when a kiosk sends the version it showed, and staff have since replaced it, then each guest is recorded under the one they read', async () => {
    const { event, set } = await eventWithNotice('A')
    await changeNotice(event.id, { privacyNotice: notice('B') })
    expect(await versionsOf(await register(set.id, { privacyNoticeVersion: 'A' }))).toEqual(['A', 'A'])
    expect(await versionsOf(await register(set.id, { privacyNoticeVersion: 'B' }))).toEqual(['B', 'B'])
    // Without one, the event's current notice, as before the field existed.
    expect(await versionsOf(await register(set.id))).toEqual(['B', 'B'])
  })

  it('when a version was published, removed, and published again, then each stays known', async () => {
    const { event, set } = await eventWithNotice(undefined)
    await changeNotice(event.id, { privacyNotice: notice('2026-01') })
    await changeNotice(event.id, { privacyNotice: null })
    expect(await versionsOf(await register(set.id))).toEqual([null, null])
    expect(await versionsOf(await register(set.id, { privacyNoticeVersion: '2026-01' }))).toEqual(['2026-01', '2026-01'])
  })

  it('when the version is one the event never published, then 400 at its field, with its code, and nothing is stored', async () => {
    const { set } = await eventWithNotice('A')
    // Another event's notice is not this one's.
    await eventWithNotice('elsewhere')
    const before = await countRows(app.orm)
    for (const version of ['B', 'elsewhere']) {
      const refused = await register(set.id, { privacyNoticeVersion: version })
      expect(refused.status).toBe(400)
      expect(await refused.json()).toEqual({
        error: `This event never published the privacy notice ${version}`,
        code: 'unknown_privacy_notice',
        field: 'privacyNoticeVersion',
      })
    }
    expect(await countRows(app.orm)).toEqual(before)
  })

  it('when the event has no notice at all, then any named version is refused; a guest error still comes first, and an unknown set is a 404', async () => {
    const { set } = await eventWithNotice(undefined)
    expect((await (await register(set.id, { privacyNoticeVersion: 'A' })).json()).code).toBe('unknown_privacy_notice')
    const badPhone = await postJson(`${app.url}/sets/${set.id}/sessions`, {
      guests: [{ name: 'Ada', phone: 'call me' }],
      privacyNoticeVersion: 'A',
    })
    expect((await badPhone.json()).code).toBe('invalid_phone')
    const noSet = await register('Zt5oP1vC9sDk3MwE7aRgQh', { privacyNoticeVersion: 'A' })
    expect(noSet.status).toBe(404)
    expect((await noSet.json()).code).toBe('no_such_set')
  })

  it('when the version is blank or too long, then the validator refuses it at its path', async () => {
    const { set } = await eventWithNotice('A')
    for (const version of ['', ' ', 'x'.repeat(41), 7])
      await expectInvalid(await register(set.id, { privacyNoticeVersion: version }), [['privacyNoticeVersion']])
  })
})
