/**
 * One guest's rights, as a business answers a request: find the person across events by email or
 * phone, export their data (theirs only), and erase them, down to every text column of every table.
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { registerGuests, seedEvent, withoutIds, withTestServer } from '../support/harness.js'
import { findEverywhere } from '../support/database-scan.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let staff: StaffSession
beforeAll(async () => {
  staff = await signedInStaff(app)
})

const unique = () => randomBytes(4).toString('hex')

/**
 * Ada, at three events: alone at the first (a live gallery), with Bob at the second (a live
 * gallery they share), alone at the third with her phone only (still waiting for the booth).
 */
async function adaAtThreeEvents() {
  const tag = unique()
  const ada = {
    name: `Ada Lovelace${tag}`,
    email: `ada.${tag}@example.org`,
    phone: `+1415555${String(Math.floor(Math.random() * 9000) + 1000)}`,
  }
  const bob = { name: `Bob Babbage${tag}`, email: `bob.${tag}@example.org` }
  const [first, second, third] = await Promise.all([seedEvent(app.orm), seedEvent(app.orm), seedEvent(app.orm)])
  const alone = await makeLiveGallery(app, {
    setId: first.sets[0]!.id,
    guests: [{ name: ada.name, email: ada.email, marketingOptIn: true }],
  })
  const shared = await makeLiveGallery(app, {
    setId: second.sets[0]!.id,
    guests: [
      { name: bob.name, email: bob.email },
      { name: ada.name, email: ada.email },
    ],
  })
  const waiting = await registerGuests(app, third.sets[0]!.id, [{ name: ada.name, phone: ada.phone }])
  return { ada, bob, events: [first.event, second.event, third.event], alone, shared, waiting }
}

const find = async (query: string) => staffFetch(app, staff, `/staff/people?${query}`)

describe('GET /staff/people', () => {
  it('when staff search by email (any case) or by phone, then each person found lists the events they registered at', async () => {
    const { ada, events } = await adaAtThreeEvents()
    const byEmail = await find(`email=${encodeURIComponent(ada.email.toUpperCase())}`)
    expect(byEmail.status).toBe(200)
    const { people } = await byEmail.json()
    // Linked by email at the first two events; the phone-only registration is a customer of its own.
    expect(people).toEqual([
      {
        id: expect.any(String),
        email: ada.email,
        phone: null,
        name: ada.name,
        registrations: 2,
        events: expect.arrayContaining([expect.objectContaining({ id: events[0]!.id }), expect.objectContaining({ id: events[1]!.id })]),
      },
    ])
    const byPhone = await (await find(`phone=${encodeURIComponent(ada.phone)}`)).json()
    expect(byPhone.people).toEqual([
      {
        id: expect.any(String),
        email: null,
        phone: ada.phone,
        name: ada.name,
        registrations: 1,
        events: [expect.objectContaining({ id: events[2]!.id })],
      },
    ])
    expect(await (await find(`email=nobody.${unique()}@example.org`)).json()).toEqual({ people: [] })
  })

  it('when a guest gave a phone first and later an email with it, then the email finds them too (the customer, linked by phone, keeps no email)', async () => {
    const tag = unique()
    const grace = {
      name: `Grace Hopper${tag}`,
      email: `grace.${tag}@example.org`,
      phone: `+1415556${String(Math.floor(Math.random() * 9000) + 1000)}`,
    }
    const [first, second] = await Promise.all([seedEvent(app.orm), seedEvent(app.orm)])
    await registerGuests(app, first.sets[0]!.id, [{ name: grace.name, phone: grace.phone }])
    await registerGuests(app, second.sets[0]!.id, [{ name: grace.name, email: grace.email, phone: grace.phone }])
    const person = {
      id: expect.any(String),
      email: null,
      phone: grace.phone,
      name: grace.name,
      registrations: 2,
      events: expect.arrayContaining([expect.objectContaining({ id: first.event.id }), expect.objectContaining({ id: second.event.id })]),
    }
    expect((await (await find(`email=${encodeURIComponent(grace.email.toUpperCase())}`)).json()).people).toEqual([person])
    expect((await (await find(`phone=${encodeURIComponent(grace.phone)}`)).json()).people).toEqual([person])
  })

  it('when neither or both are given, or the phone is not one, then 400', async () => {
    expect((await find('')).status).toBe(400)
    expect((await find('email=a@example.org&phone=%2B14155552671')).status).toBe(400)
    const notPhone = await find('phone=call%20me')
    expect(notPhone.status).toBe(400)
    expect(await notPhone.json()).toEqual({ error: "This doesn't look like a phone number: call me", code: 'invalid_phone' })
  })
})

describe('GET /staff/people/:customerId/export', () => {
  it('when a person is exported, then the JSON holds each of their guest rows with consent, event, session, gallery link and their messages, and nothing of the other guest', async () => {
    const { ada, bob, alone, shared, events } = await adaAtThreeEvents()
    const [person] = (await (await find(`email=${encodeURIComponent(ada.email)}`)).json()).people
    const response = await staffFetch(app, staff, `/staff/people/${person.id}/export`)
    expect(response.status).toBe(200)
    const exported = await response.json()
    expect(exported.person).toEqual({ id: person.id, email: ada.email, phone: null, name: ada.name, createdAt: expect.any(Number) })
    expect(exported.registrations.map((row: { session: { id: string } }) => row.session.id)).toEqual([alone.sessionId, shared.sessionId])
    expect(exported.registrations[0]).toMatchObject({
      name: ada.name,
      email: ada.email,
      marketingOptIn: true,
      agreedToListing: false,
      listingChoice: 'not asked',
      event: { id: events[0]!.id },
      session: { id: alone.sessionId, status: 'completed', galleryUrl: `${app.config.galleryUrl}/${alone.sessionId}`, photos: 3 },
      messages: [expect.objectContaining({ channel: 'email', recipient: ada.email, status: 'pending' })],
    })
    expect(exported.registrations[1].messages).toEqual([expect.objectContaining({ recipient: ada.email })])
    // Bob shared a session with her: nothing of his is hers to receive.
    const text = JSON.stringify(exported)
    expect(text).not.toContain(bob.email)
    // Not his name either, not even as the shared session's label ("Bob & Ada"); ids are left out of
    // that search: 22 random characters may spell "Bob".
    expect(withoutIds(text)).not.toContain('Bob')
  })

  it('when the id names nobody, then 404 "no such person"', async () => {
    const response = await staffFetch(app, staff, '/staff/people/AAAAAAAAAAAAAAAAAAAAAA/export')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such person', code: 'no_such_person' })
  })
})

/** Every text (and JSON, and byte) column of every table, with the rows that hold `needle`. */
const everywhere = (needle: string) => findEverywhere(app.orm, needle)

describe('POST /staff/people/:customerId/erase', () => {
  it('when a person who attended three events is erased, then their solo sessions and photos are gone, the shared one stays for the other guest under his own name, and nothing of theirs is left in any table', async () => {
    const { ada, bob, alone, shared } = await adaAtThreeEvents()
    const people = [
      ...(await (await find(`email=${encodeURIComponent(ada.email)}`)).json()).people,
      ...(await (await find(`phone=${encodeURIComponent(ada.phone)}`)).json()).people,
    ]
    expect(people).toHaveLength(2)
    // The copies are made (a deletion while they are written is another test's matter).
    await Promise.all([copiesSettled(app, alone.sessionId), copiesSettled(app, shared.sessionId)])
    const byEmail = await staffFetch(app, staff, `/staff/people/${people[0].id}/erase`, { method: 'POST' })
    expect(byEmail.status).toBe(200)
    expect(await byEmail.json()).toEqual({ erased: { sessions: 1, guests: 2, photos: 3 } })
    const byPhone = await staffFetch(app, staff, `/staff/people/${people[1].id}/erase`, { method: 'POST' })
    expect(await byPhone.json()).toEqual({ erased: { sessions: 1, guests: 1, photos: 0 } })

    // Her own gallery is gone, its photos from storage too; the shared one is Bob's now.
    expect((await fetch(`${app.url}/gallery/${alone.sessionId}`)).status).toBe(404)
    expect((await fetch(`${app.url}/gallery/${alone.sessionId}/photos/${alone.photos[0]!.id}/download`)).status).toBe(404)
    const stillShared = await fetch(`${app.url}/gallery/${shared.sessionId}`)
    expect(stillShared.status).toBe(200)
    expect((await stillShared.json()).label).toBe(bob.name)
    if (app.config.storage.kind !== 'local') throw new Error('this test needs the local bucket')
    expect(existsSync(join(app.config.storage.root, 'sessions', alone.sessionId))).toBe(false)
    expect(existsSync(join(app.config.storage.root, 'sessions', shared.sessionId))).toBe(true)

    // Not a trace: her address, her phone, her name, in any column of any table.
    for (const needle of [ada.email, ada.phone, ada.name.split(' ')[1]!]) expect(await everywhere(needle), needle).toEqual([])
    expect(await everywhere(bob.email)).not.toEqual([])
  })

  it('when the person is already erased, or never was, then 404 and nothing changes', async () => {
    const { ada } = await adaAtThreeEvents()
    const [person] = (await (await find(`email=${encodeURIComponent(ada.email)}`)).json()).people
    expect((await staffFetch(app, staff, `/staff/people/${person.id}/erase`, { method: 'POST' })).status).toBe(200)
    const again = await staffFetch(app, staff, `/staff/people/${person.id}/erase`, { method: 'POST' })
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual({ error: 'no such person', code: 'no_such_person' })
  })
})

describe('erasure and a kiosk that replays', () => {
  it("when a person is erased and a kiosk's queue then replays her registration with its key, then it is told she is gone (410, replayed) and nothing of her is made again or left anywhere", async () => {
    const tag = unique()
    const person = { name: `Quinn Queued${tag}`, email: `quinn.${tag}@example.org`, phone: '(415) 555-0177' }
    const { sets } = await seedEvent(app.orm)
    const key = `kiosk-queue-${randomBytes(12).toString('hex')}`
    const register = () =>
      fetch(`${app.url}/sets/${sets[0]!.id}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ guests: [person] }),
      })
    expect((await register()).status).toBe(201)
    const [found] = (await (await find(`email=${encodeURIComponent(person.email)}`)).json()).people
    expect((await staffFetch(app, staff, `/staff/people/${found.id}/erase`, { method: 'POST' })).status).toBe(200)

    const replayed = await register()
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), (await replayed.json()).code]).toEqual([410, 'true', 'gone'])
    expect((await (await find(`email=${encodeURIComponent(person.email)}`)).json()).people).toEqual([])
    for (const needle of [person.email, '+14155550177', person.phone, person.name]) expect(await everywhere(needle), needle).toEqual([])
  })
})
