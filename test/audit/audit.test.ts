/**
 * The audit trail (issue 22): every staff change and every bulk read of guests' data is recorded
 * (who, role, action, ids, when, request id, source address, status), refusals included, never the
 * personal data itself; owners read it with filters and a cursor; it is kept for its retention; and
 * a staff request's log line names its member.
 */
import { createLogger } from '@photobooth/server/logger'
import { pruneAuditEvents } from '@photobooth/server/modules/audit/audit.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { registerGuests, startTestServer, type TestServer } from '../support/harness.js'
import { sessionCookie, signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'

const lines: string[] = []
let app: TestServer
let owner: StaffSession
let manager: StaffSession
beforeAll(async () => {
  app = await startTestServer({}, { logger: createLogger({ write: (line) => void lines.push(line) }) })
  owner = await signedInStaff(app, 'Olive Owner', 'owner')
  manager = await signedInStaff(app, 'Manny Manager', 'manager')
})
afterAll(async () => {
  await app?.stop()
})

type Audited = {
  id: string
  at: number
  memberId: string
  role: string
  action: string
  targets: Record<string, string>
  status: number
  requestId: string
  sourceIp: string
}

const trail = async (query: string) => {
  const response = await staffFetch(app, owner, `/staff/audit?${query}`)
  expect(response.status).toBe(200)
  return (await response.json()) as { events: Audited[]; nextCursor: string | null }
}

/** The trail of one member once it holds `count` events: written as each answer goes, so read until there. */
const trailOf = (memberId: string, count: number) =>
  until(
    () => trail(`memberId=${memberId}&limit=200`),
    ({ events }) => events.length >= count,
  )

describe('the audit trail', () => {
  const guest = { name: 'Private Person', email: 'private.person@example.org', phone: '+14155550123' }
  let eventId: string
  let setId: string
  const requestIds: string[] = []

  beforeAll(async () => {
    const created = await staffFetch(app, owner, '/staff/events', {
      method: 'POST',
      body: { slug: `audit-${Date.now()}`, name: 'Audited Gala', startAt: Date.now() },
    })
    requestIds.push(created.headers.get('x-request-id')!)
    eventId = (await created.json()).id
    const set = await staffFetch(app, owner, `/staff/events/${eventId}/sets`, { method: 'POST', body: { slug: 'booth', name: 'Booth' } })
    requestIds.push(set.headers.get('x-request-id')!)
    setId = (await set.json()).id
    await registerGuests(app, setId, [guest])
    const csv = await staffFetch(app, owner, `/staff/events/${eventId}/guests.csv`)
    expect(csv.status).toBe(200)
    requestIds.push(csv.headers.get('x-request-id')!)
    await csv.text()
    // Refused: a manager deleting, and a change from a foreign origin.
    expect((await staffFetch(app, manager, `/staff/events/${eventId}`, { method: 'DELETE' })).status).toBe(403)
    expect(
      (
        await staffFetch(app, manager, `/staff/events/${eventId}`, {
          method: 'PATCH',
          body: {},
          headers: { origin: 'https://evil.example' },
        })
      ).status,
    ).toBe(403)
    // Reads that are not bulk reads of guests' data are not recorded.
    expect((await staffFetch(app, owner, `/staff/events/${eventId}`)).status).toBe(200)
  })

  it("when an owner reads it, then each change and export is there, newest first, with who, role, action, ids, status, the request's id and the source address", async () => {
    const { events } = await trailOf(owner.memberId, 3)
    expect(events.map((event) => [event.action, event.status])).toEqual([
      ['exportGuests', 200],
      ['createSet', 201],
      ['createEvent', 201],
    ])
    expect(events[0]).toEqual({
      id: expect.any(String),
      at: expect.any(Number),
      memberId: owner.memberId,
      role: 'owner',
      action: 'exportGuests',
      targets: { eventId },
      status: 200,
      requestId: requestIds[2],
      sourceIp: '127.0.0.1',
    })
    // The set's creation names its event (the path) and the new set; the event's, the new event.
    expect(events[1]!.targets).toEqual({ eventId, setId })
    expect(events[2]!.targets).toEqual({ eventId })
    expect(events.map((event) => event.requestId).reverse()).toEqual(requestIds)
    expect(events[0]!.at).toBeGreaterThanOrEqual(events[1]!.at)
  })

  it("when a member is refused (their role, or a foreign origin), then the attempt is recorded with its 403 and the member's role", async () => {
    const { events } = await trailOf(manager.memberId, 2)
    expect(events.map((event) => [event.action, event.role, event.status, event.targets])).toEqual([
      ['updateEvent', 'manager', 403, { eventId }],
      ['deleteEvent', 'manager', 403, { eventId }],
    ])
  })

  it('when filtered by action or by any id, and paged with the cursor, then it answers just those, a page at a time', async () => {
    await trailOf(owner.memberId, 3)
    expect((await trail(`action=createSet&targetId=${eventId}`)).events.map((event) => event.memberId)).toEqual([owner.memberId])
    // The ids of each path, and of each creation: the event's creation names the new event.
    const byEvent = await trail(`targetId=${eventId}&limit=200`)
    expect(byEvent.events.map((event) => event.action)).toEqual(['updateEvent', 'deleteEvent', 'exportGuests', 'createSet', 'createEvent'])
    const first = await trail(`targetId=${eventId}&limit=3`)
    const second = await trail(`targetId=${eventId}&limit=3&cursor=${first.nextCursor}`)
    expect([...first.events, ...second.events]).toEqual(byEvent.events)
    expect(second.nextCursor).toBeNull()
    expect((await staffFetch(app, owner, '/staff/audit?cursor=nonesuch')).status).toBe(400)
  })

  it('when a time is past the year 9999, then 400 in the validator’s shape, not a fault', async () => {
    for (const query of ['since=253402300800000', 'until=8640000000000001', 'since=1e300']) {
      const refused = await staffFetch(app, owner, `/staff/audit?${query}`)
      expect(refused.status, query).toBe(400)
      expect(await refused.json()).toMatchObject({ success: false, error: { name: 'ZodError' } })
    }
    expect((await staffFetch(app, owner, '/staff/audit?since=253402300799999')).status).toBe(200)
  })

  it("when the whole table is read, then it holds no guest's name, email or phone, nor the event's name", async () => {
    await trailOf(owner.memberId, 3)
    const rows = JSON.stringify(await app.orm.em.fork().execute('select * from audit_event'))
    for (const needle of [guest.name, guest.email, guest.phone, 'Audited Gala', 'Olive Owner', owner.email])
      expect(rows).not.toContain(needle)
  })

  it("when a staff request is logged, then its line names the member's id, and a guest's line names nobody", async () => {
    const request = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['message'] === 'request')
    expect(request.find((line) => line['route'] === '/staff/events/:eventId/guests.csv')).toMatchObject({ member: owner.memberId })
    expect(request.find((line) => line['route'] === '/sets/:setId/sessions')).not.toHaveProperty('member')
  })

  it('when a member changes their own account (password, sign-out), then that is in the trail too, under their id and role', async () => {
    const mover = await signedInStaff(app, 'Moving Member', 'staff')
    const post = (path: string, body: unknown, cookie = mover.cookie) =>
      fetch(`${app.url}/api/auth/${path}`, {
        method: 'POST',
        headers: { ...mover.headers, cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await post('change-password', { currentPassword: 'not it at all', newPassword: 'pale violet kettle orbit' })).status).toBe(400)
    const changed = await post('change-password', { currentPassword: mover.password, newPassword: 'pale violet kettle orbit' })
    expect(changed.status).toBe(200)
    // The change ended every other session and renewed this one: the sign-out is the renewed session's.
    expect((await post('sign-out', {}, sessionCookie(changed))).status).toBe(200)
    const { events } = await trailOf(mover.memberId, 3)
    expect(events.map((event) => [event.action, event.role, event.status])).toEqual([
      ['signOut', 'staff', 200],
      ['changePassword', 'staff', 200],
      ['changePassword', 'staff', 400],
    ])
    expect(JSON.stringify(events)).not.toContain('pale violet kettle orbit')
  })

  it('when its retention has passed, then the prune removes what is older and nothing younger', async () => {
    await trailOf(owner.memberId, 3)
    const days = app.config.auditRetentionDays
    await pruneAuditEvents({ orm: app.orm, config: app.config, now: () => new Date(Date.now() + (days - 1) * 86_400_000) })
    expect((await trail(`memberId=${owner.memberId}`)).events).toHaveLength(3)
    await pruneAuditEvents({ orm: app.orm, config: app.config, now: () => new Date(Date.now() + (days + 1) * 86_400_000) })
    expect((await trail(`memberId=${owner.memberId}`)).events).toEqual([])
  })

  it('when an invited member who has not changed their password tries a change, then the 403 is in the trail too', async () => {
    // Invited by an owner of its own: the other tests count this owner's and this event's rows.
    const inviter = await signedInStaff(app, 'Other Owner', 'owner')
    const email = `invited-${Date.now()}@example.org`
    const invited = await staffFetch(app, inviter, '/staff/members', {
      method: 'POST',
      body: { email, name: 'Ivy Invited', role: 'manager' },
    })
    const {
      member: { id: memberId },
      password,
    } = (await invited.json()) as { member: { id: string }; password: string }
    const { headers } = await app.auth.api.signInEmail({ body: { email, password }, returnHeaders: true })
    const cookie = sessionCookie({ headers, status: 200 })
    const session: StaffSession = { memberId, email, password, cookie, headers: { cookie, origin: new URL(app.config.publicUrl).origin } }
    const refused = await staffFetch(app, session, `/staff/events/${eventId}`, { method: 'PATCH', body: { name: 'Renamed' } })
    expect([refused.status, (await refused.json()).code]).toEqual([403, 'password_change_required'])
    const { events } = await trailOf(memberId, 1)
    expect(events.map((event) => [event.action, event.role, event.status, event.targets, event.requestId])).toEqual([
      ['updateEvent', 'manager', 403, { eventId }, refused.headers.get('x-request-id')],
    ])
  })
})

describe('what the trail notes (issue 35, item 6)', () => {
  it('when members create events, members and booth keys, then each row names the new id and what matters of it: the role given, the key’s scope', async () => {
    const creator = await signedInStaff(app, 'Carla Creator', 'owner')
    const event = await (
      await staffFetch(app, creator, '/staff/events', {
        method: 'POST',
        body: { slug: `noted-${Date.now()}`, name: 'Noted', startAt: Date.now() },
      })
    ).json()
    const invited = await (
      await staffFetch(app, creator, '/staff/members', {
        method: 'POST',
        body: { email: `new.owner.${Date.now()}@example.org`, name: 'New Owner', role: 'owner' },
      })
    ).json()
    const everywhere = await (await staffFetch(app, creator, '/staff/booth-keys', { method: 'POST', body: { name: 'Any booth' } })).json()
    const scoped = await (
      await staffFetch(app, creator, '/staff/booth-keys', { method: 'POST', body: { name: 'Gala booth', eventIds: [event.id] } })
    ).json()
    const { events } = await trailOf(creator.memberId, 4)
    expect(events.map((row) => [row.action, row.targets])).toEqual([
      ['createBoothKey', { keyId: scoped.id, scope: event.id }],
      ['createBoothKey', { keyId: everywhere.id, scope: 'unscoped' }],
      ['inviteStaffMember', { memberId: invited.member.id, role: 'owner' }],
      ['createEvent', { eventId: event.id }],
    ])
  })

  it('when a manager reads what only owners may, then the refusal is in the trail', async () => {
    const reader = await signedInStaff(app, 'Rita Reader', 'manager')
    for (const path of ['/staff/audit', '/staff/members']) expect((await staffFetch(app, reader, path)).status).toBe(403)
    const { events } = await trailOf(reader.memberId, 2)
    expect(events.map((row) => [row.action, row.status])).toEqual([
      ['listStaffMembers', 403],
      ['listAuditEvents', 403],
    ])
  })

  it("when someone signs in to a member's address, right or wrong, then it is in the trail under that member; an address nobody has leaves no row", async () => {
    const member = await signedInStaff(app, 'Sid Signin', 'staff')
    const signIn = (email: string, password: string) =>
      fetch(`${app.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: app.config.publicUrl },
        body: JSON.stringify({ email, password }),
      })
    expect((await signIn(member.email, 'not the password at all')).status).toBe(401)
    expect((await signIn(member.email, member.password)).status).toBe(200)
    const { events } = await trailOf(member.memberId, 2)
    expect(events.map((row) => [row.action, row.role, row.status])).toEqual([
      ['signIn', 'staff', 200],
      ['signIn', 'staff', 401],
    ])
    expect(JSON.stringify(events)).not.toContain(member.email)

    // Rows are written as answers go: a sign-in to nobody's address, then one to the member's that
    // is waited for. Had the first written a row, it would be there too.
    const count = async () =>
      (await app.orm.em.fork().execute<{ n: number }[]>("select count(*)::int as n from audit_event where action = 'signIn'"))[0]!.n
    const before = await count()
    expect((await signIn('nobody.at.all@example.org', 'whatever it is')).status).toBe(401)
    expect((await signIn(member.email, 'wrong once more')).status).toBe(401)
    await trailOf(member.memberId, 3)
    expect(await count()).toBe(before + 1)
  })
})
