/**
 * A listing on the event page is a choice, never a default written as one (issue 35, item 3): a
 * guest who registered at a private event without being asked is not published when the event is
 * made public; one who said yes is; staff see how many sessions the page would show before they
 * change the privacy; exports say "not asked" rather than "yes".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery, type FixtureGuest } from '../support/gallery-fixture.js'
import { startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

let app: TestServer
let owner: StaffSession
beforeAll(async () => {
  app = await startTestServer()
  owner = await signedInStaff(app)
})
afterAll(() => app?.stop())

async function privateEvent() {
  const slug = uniqueSlug()
  const event = await (
    await staffFetch(app, owner, '/staff/events', { method: 'POST', body: { slug, name: 'Quiet Gala', startAt: Date.now() } })
  ).json()
  const set = await (
    await staffFetch(app, owner, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'booth', name: 'Booth' } })
  ).json()
  return { id: event.id as string, slug, setId: set.id as string }
}

const guest = (name: string, extra: Partial<FixtureGuest> = {}): FixtureGuest => ({
  name,
  email: `${name.toLowerCase()}.${uniqueSlug()}@example.org`,
  ...extra,
})
const listedSessions = async (slug: string) =>
  ((await (await fetch(`${app.url}/gallery/events/${slug}`)).json()) as { sets: { sessions: { id: string }[] }[] }).sets.flatMap((set) =>
    set.sessions.map((session) => session.id),
  )

describe('listing on the event page', () => {
  it('when a private event is made public, then only the sessions whose guests said yes are listed; staff saw the count before; the not-asked guest is exported as not asked', async () => {
    const event = await privateEvent()
    await makeLiveGallery(app, { setId: event.setId, guests: [guest('Nora')] })
    const saidYes = await makeLiveGallery(app, { setId: event.setId, guests: [guest('Yuri', { hideFromEventPage: false })] })
    await makeLiveGallery(app, { setId: event.setId, guests: [guest('Nadia', { hideFromEventPage: true })] })

    const before = await (await staffFetch(app, owner, `/staff/events/${event.id}`)).json()
    expect(before.counts.listed).toBe(1)
    expect((await staffFetch(app, owner, `/staff/events/${event.id}`, { method: 'PATCH', body: { isPrivate: false } })).status).toBe(200)
    expect(await listedSessions(event.slug)).toEqual([saidYes.sessionId])

    const csv = await (await staffFetch(app, owner, `/staff/events/${event.id}/guests.csv`)).text()
    const lines = csv.split('\r\n')
    const columns = lines[0]!.replace('\uFEFF', '').split(',')
    const listing = columns.indexOf('Agreed to listing')
    const answers = Object.fromEntries(
      lines
        .slice(1)
        .filter(Boolean)
        .map((line) => [line.split(',')[0], line.split(',')[listing]]),
    )
    expect(answers).toEqual({ Nora: 'not asked', Yuri: 'yes', Nadia: 'no' })
  })

  it('when a guest registers at a public event that lists by default without being asked, then they are listed as the page said they would be', async () => {
    const event = await privateEvent()
    expect((await staffFetch(app, owner, `/staff/events/${event.id}`, { method: 'PATCH', body: { isPrivate: false } })).status).toBe(200)
    const session = await makeLiveGallery(app, { setId: event.setId, guests: [guest('Paula')] })
    expect(await listedSessions(event.slug)).toEqual([session.sessionId])
    expect((await (await staffFetch(app, owner, `/staff/events/${event.id}`)).json()).counts.listed).toBe(1)
  })
})
