/**
 * Booth keys scoped to events (issue 22): a scoped key sees and acts only on its events, on every
 * booth route (another event's set or session answers the same 404 as one that does not exist);
 * creating a key asks for its events, and only an owner makes one for every event, marked as such.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let owner: StaffSession
let manager: StaffSession
let mine: { eventId: string; setId: string; sessionId: string }
let theirs: { eventId: string; setId: string; sessionId: string }

async function eventWithActiveSession() {
  const { event, sets } = await seedEvent(app.orm)
  const sessionId = await registerGuests(app, sets[0]!.id, [{ name: 'Grace Hopper', email: 'grace.scope@example.org' }])
  return { eventId: event.id, setId: sets[0]!.id, sessionId }
}

beforeAll(async () => {
  owner = await signedInStaff(app, 'Owner', 'owner')
  manager = await signedInStaff(app, 'Manager', 'manager')
  mine = await eventWithActiveSession()
  theirs = await eventWithActiveSession()
})

const createKey = (session: StaffSession, body: Record<string, unknown>) =>
  staffFetch(app, session, '/staff/booth-keys', { method: 'POST', body })

const asBooth = (key: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${app.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })

describe('scoped booth keys', () => {
  it('when a manager makes a key, then it must name its events (existing ones); an owner may make one for every event, and the listing marks which is which', async () => {
    const unscopedByManager = await createKey(manager, { name: 'Everywhere' })
    expect(unscopedByManager.status).toBe(403)
    expect(await unscopedByManager.json()).toEqual({
      error: 'Your role (manager) does not allow this: it needs owner (a key for every event: give eventIds)',
      code: 'insufficient_role',
    })
    expect((await createKey(manager, { name: 'Nowhere', eventIds: ['no-such-event'] })).status).toBe(404)
    const scoped = await createKey(manager, { name: 'Scoped', eventIds: [mine.eventId, mine.eventId] })
    expect(scoped.status).toBe(201)
    expect(await scoped.json()).toMatchObject({ eventIds: [mine.eventId], unscoped: false })
    const everywhere = await createKey(owner, { name: 'Everywhere' })
    expect(await everywhere.json()).toMatchObject({ eventIds: null, unscoped: true })
    const { keys } = await (await staffFetch(app, owner, '/staff/booth-keys')).json()
    expect(
      keys
        .filter((key: { name: string }) => ['Scoped', 'Everywhere'].includes(key.name))
        .map((key: { name: string; unscoped: boolean }) => [key.name, key.unscoped]),
    ).toEqual([
      ['Scoped', false],
      ['Everywhere', true],
    ])
  })

  it("when a scoped key works, then it sees only its events, and another event's set and sessions answer 404 as unknown ones, changing nothing", async () => {
    const { key } = await (await createKey(owner, { name: 'Mine only', eventIds: [mine.eventId] })).json()
    const { events } = await (await asBooth(key, '/booth/events')).json()
    expect(events.map((event: { id: string }) => event.id)).toEqual([mine.eventId])

    expect((await asBooth(key, `/booth/sets/${mine.setId}/sessions`)).status).toBe(200)
    const otherSet = await asBooth(key, `/booth/sets/${theirs.setId}/sessions`)
    expect([otherSet.status, await otherSet.json()]).toEqual([404, { error: 'no such set', code: 'no_such_set' }])

    for (const [path, body] of [
      [`/booth/sessions/${theirs.sessionId}/uploads`, { count: 1 }],
      [`/booth/sessions/${theirs.sessionId}/complete`, { photos: [`sessions/${theirs.sessionId}/x.jpg`] }],
      [`/booth/sessions/${theirs.sessionId}/cancel`, {}],
    ] as const) {
      const refused = await asBooth(key, path, { method: 'POST', body })
      expect([refused.status, await refused.json()], path).toEqual([404, { error: 'no such session', code: 'no_such_session' }])
    }
    const [row] = await app.orm.em.fork().execute<{ status: string }[]>('select status from session where id = ?', [theirs.sessionId])
    expect(row!.status).toBe('active')
    expect((await asBooth(key, `/booth/sessions/${mine.sessionId}/uploads`, { method: 'POST', body: { count: 1 } })).status).toBe(200)
  })

  it('when an unscoped key works, then it sees every event', async () => {
    const { key } = await (await createKey(owner, { name: 'All of them' })).json()
    const { events } = await (await asBooth(key, '/booth/events')).json()
    expect(events.map((event: { id: string }) => event.id)).toEqual(expect.arrayContaining([mine.eventId, theirs.eventId]))
    expect((await asBooth(key, `/booth/sets/${theirs.setId}/sessions`)).status).toBe(200)
  })
})
