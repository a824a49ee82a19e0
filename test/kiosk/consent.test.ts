/**
 * Consent at registration, as a business and its guests would check it: the event's privacy notice
 * and phone country reach the kiosk, each guest's choices and the notice version are recorded with
 * them, a guest who asks not to be listed keeps their session off the public event page (JSON and
 * HTML), and the organiser's CSV shows it all.
 */
import { randomBytes } from 'node:crypto'

import { beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery } from '../support/gallery-fixture.js'
import { postJson, uniqueSlug, withoutIds, withTestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let staff: StaffSession
beforeAll(async () => {
  staff = await signedInStaff(app)
})

const NOTICE = { version: '2026-06', url: 'https://booths.example.com/privacy' }

/** An event made by staff, public (so that its page can be read), with one set; its kiosk context. */
async function staffEvent(settings: Record<string, unknown> = {}) {
  const slug = uniqueSlug()
  const created = await staffFetch(app, staff, '/staff/events', {
    method: 'POST',
    body: { slug, name: 'Consent Gala', startAt: Date.parse('2026-06-01T18:00:00Z'), isPrivate: false, ...settings },
  })
  expect(created.status).toBe(201)
  const event = await created.json()
  const set = await (
    await staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'booth', name: 'Booth' } })
  ).json()
  const context = await (await fetch(`${app.url}/events/${slug}/sets/booth`)).json()
  return { event, set, context }
}

const email = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.org`

async function guestRows(sessionId: string) {
  return app.orm.em.fork().execute<
    {
      email: string | null
      phone: string | null
      marketing_opt_in: boolean
      listed: boolean
      privacy_notice_version: string | null
      registered_at: string | null
    }[]
  >('select email, phone, marketing_opt_in, listed, privacy_notice_version, registered_at from session_guest where session_id = ? order by position', [sessionId])
}

describe('the event as the kiosk sees it', () => {
  it("when staff give an event a country and a privacy notice, then the kiosk context carries them, and phones typed without a country code are read as that country's", async () => {
    const italian = await staffEvent({ phoneCountry: 'IT', privacyNotice: NOTICE })
    expect(italian.context.event).toEqual({
      id: italian.event.id,
      slug: italian.event.slug,
      name: 'Consent Gala',
      phoneCountry: 'IT',
      listGuestsByDefault: true,
      privacyNotice: NOTICE,
    })
    expect(italian.event).toMatchObject({ phoneCountry: 'IT', privacyNotice: NOTICE, listGuestsByDefault: true })

    const registered = await postJson(`${app.url}/sets/${italian.set.id}/sessions`, {
      guests: [{ name: 'Giulia Rossi', phone: '347 123 4567' }],
    })
    expect(registered.status).toBe(201)
    expect((await guestRows((await registered.json()).id)).map((row) => row.phone)).toEqual(['+393471234567'])
    // A number with its own country code keeps it.
    const british = await postJson(`${app.url}/sets/${italian.set.id}/sessions`, { guests: [{ name: 'Ada', phone: '+44 20 7946 0958' }] })
    expect((await guestRows((await british.json()).id)).map((row) => row.phone)).toEqual(['+442079460958'])
  })

  it('when an event sets no country, then the same number is a US one, as the API has always read it', async () => {
    const plain = await staffEvent()
    expect(plain.context.event.phoneCountry).toBe('US')
    expect(plain.context.event).not.toHaveProperty('privacyNotice')
    const registered = await postJson(`${app.url}/sets/${plain.set.id}/sessions`, { guests: [{ name: 'Sam', phone: '347 123 4567' }] })
    expect((await guestRows((await registered.json()).id)).map((row) => row.phone)).toEqual(['+13471234567'])
  })

  it('when staff name a country without a numbering plan, or not in capitals, or a notice without a url or text, then 400 and nothing is written', async () => {
    const slug = uniqueSlug()
    const unknown = await staffFetch(app, staff, '/staff/events', {
      method: 'POST',
      body: { slug, name: 'X', startAt: 0, phoneCountry: 'XX' },
    })
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toEqual({ error: 'No phone numbering plan is known for the country XX', code: 'unknown_phone_country' })
    const lower = await staffFetch(app, staff, '/staff/events', {
      method: 'POST',
      body: { slug, name: 'X', startAt: 0, phoneCountry: 'it' },
    })
    expect(lower.status).toBe(400)
    const bare = await staffFetch(app, staff, '/staff/events', {
      method: 'POST',
      body: { slug, name: 'X', startAt: 0, privacyNotice: { version: '1' } },
    })
    expect(bare.status).toBe(400)
    // The kiosk and the email open the notice's link: a web page only.
    for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd']) {
      const scripted = await staffFetch(app, staff, '/staff/events', {
        method: 'POST',
        body: { slug, name: 'X', startAt: 0, privacyNotice: { version: '1', url } },
      })
      expect(scripted.status, url).toBe(400)
    }
    expect((await fetch(`${app.url}/gallery/events/${slug}`)).status).toBe(404)
    expect(await app.orm.em.fork().count('Event', { slug })).toBe(0)
  })

  it('when staff change the country and clear the notice, then the kiosk sees the change', async () => {
    const { event } = await staffEvent({ phoneCountry: 'IT', privacyNotice: NOTICE })
    const changed = await staffFetch(app, staff, `/staff/events/${event.id}`, {
      method: 'PATCH',
      body: { phoneCountry: 'GB', privacyNotice: null },
    })
    expect(changed.status).toBe(200)
    expect(await changed.json()).toMatchObject({ phoneCountry: 'GB', privacyNotice: null })
    const context = await (await fetch(`${app.url}/events/${event.slug}/sets/booth`)).json()
    expect(context.event).toEqual({ id: event.id, slug: event.slug, name: 'Consent Gala', phoneCountry: 'GB', listGuestsByDefault: true })
  })
})

describe('consent recorded with each guest', () => {
  it("when guests register with and without choices, then each row holds its opt-in, its listing, the notice's version and the time; no choice is no opt-in", async () => {
    const { set } = await staffEvent({ privacyNotice: NOTICE })
    const before = Date.now()
    const response = await postJson(`${app.url}/sets/${set.id}/sessions`, {
      guests: [
        { name: 'Ada', email: email('ada'), marketingOptIn: true },
        { name: 'Grace', email: email('grace') },
      ],
    })
    expect(response.status).toBe(201)
    const rows = await guestRows((await response.json()).id)
    expect(
      rows.map(({ marketing_opt_in, listed, privacy_notice_version }) => ({ marketing_opt_in, listed, privacy_notice_version })),
    ).toEqual([
      { marketing_opt_in: true, listed: true, privacy_notice_version: '2026-06' },
      { marketing_opt_in: false, listed: true, privacy_notice_version: '2026-06' },
    ])
    for (const row of rows) {
      expect(Date.parse(row.registered_at!)).toBeGreaterThanOrEqual(before - 1)
      expect(Date.parse(row.registered_at!)).toBeLessThanOrEqual(Date.now())
    }
  })

  it('when a consent field is not a boolean, then 400 and nothing is written', async () => {
    const { set } = await staffEvent()
    const response = await postJson(`${app.url}/sets/${set.id}/sessions`, {
      guests: [{ name: 'Ada', email: email('ada'), marketingOptIn: 'yes' }],
    })
    expect(response.status).toBe(400)
    expect(await app.orm.em.fork().count('Session', { set: set.id })).toBe(0)
  })
})

describe('the public event page and who is on it', () => {
  it('when one guest of a session asks not to be listed, then that session is on neither the JSON nor the HTML event page; its gallery link still works', async () => {
    const { event, set } = await staffEvent()
    const listed = await makeLiveGallery(app, { setId: set.id, guests: [{ name: 'Listed Lisa', email: email('lisa') }] })
    const hidden = await makeLiveGallery(app, {
      setId: set.id,
      guests: [
        { name: 'Open Olga', email: email('olga') },
        { name: 'Private Pat', email: email('pat'), hideFromEventPage: true },
      ],
    })
    const page = await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()
    expect(page.sets[0].sessions.map((session: { id: string }) => session.id)).toEqual([listed.sessionId])
    const html = await (await fetch(`${app.url}/g/events/${event.slug}`)).text()
    expect(html).toContain(listed.sessionId)
    expect(html).not.toContain(hidden.sessionId)
    expect(withoutIds(html)).not.toContain('Olga')
    expect((await fetch(`${app.url}/gallery/${hidden.sessionId}`)).status).toBe(200)
  })

  it('when the event lists no one by default, then a guest who says nothing is not listed, and one who asks to be is', async () => {
    const { event, set, context } = await staffEvent({ listGuestsByDefault: false })
    expect(context.event.listGuestsByDefault).toBe(false)
    const quiet = await makeLiveGallery(app, { setId: set.id, guests: [{ name: 'Quiet Quinn', email: email('quinn') }] })
    const keen = await makeLiveGallery(app, {
      setId: set.id,
      guests: [{ name: 'Keen Kim', email: email('kim'), hideFromEventPage: false }],
    })
    const page = await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()
    expect(page.sets[0].sessions.map((session: { id: string }) => session.id)).toEqual([keen.sessionId])
    expect((await guestRows(quiet.sessionId))[0]!.listed).toBe(false)
  })
})

describe("the organiser's CSV", () => {
  it('when guests registered with their choices under a notice, then the CSV shows each choice, the version, and the delivery state once links are queued', async () => {
    const { event, set } = await staffEvent({ privacyNotice: NOTICE })
    const ada = email('ada')
    await makeLiveGallery(app, {
      setId: set.id,
      guests: [
        { name: 'Ada Lovelace', email: ada, marketingOptIn: true, hideFromEventPage: true },
        { name: 'Grace Hopper', phone: '(415) 555-2671' },
      ],
    })
    const csv = Buffer.from(await (await staffFetch(app, staff, `/staff/events/${event.id}/guests.csv`)).arrayBuffer()).toString('utf8')
    const [header, ...rows] = csv
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n')
    expect(header!.split(',').slice(6)).toEqual([
      'Marketing opt-in',
      'Agreed to listing',
      'Privacy notice version',
      'Email delivery',
      'SMS delivery',
    ])
    // Dispatch is off in these tests: the completed session's links wait, pending.
    expect(rows.map((row) => row.split(',').slice(6))).toEqual([
      ['yes', 'no', '2026-06', 'pending', ''],
      // Grace said nothing: she was not asked, which is no answer (the public event's default lists her,
      // though Ada's wish keeps their session off the page).
      ['no', 'not asked', '2026-06', '', 'pending'],
    ])
    expect(rows[0]).toContain(ada)
  })
})
