/**
 * Roles (issue 22): every staff route declares the least role it needs in the contract, and each
 * role is held to it on every route, walked from the contract as the 401 suite walks it. The team
 * always keeps an owner; `pnpm admin` can make one.
 */
import { contract, type EdgePolicy } from '@photobooth/sdk/contract'
import { STAFF_ROLES } from '@photobooth/sdk/schemas'
import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import { mayAct, type StaffRole } from '@photobooth/server/modules/staff/roles'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { registerGuests, startTestServer, withTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, signIn, sessionCookie, staffFetch, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'

const app = withTestServer()
const sessions = {} as Record<StaffRole, StaffSession>
beforeAll(async () => {
  for (const role of STAFF_ROLES) sessions[role] = await signedInStaff(app, `A ${role}`, role)
})

type Route = { name: string; method: string; path: string; role: StaffRole | undefined }

/** A route's operation id (what the audit trail names), by its contract name (`events.delete`). */
const operationIdOf = (name: string) => {
  const [group, key] = name.split('.') as [string, string]
  const procedure = (contract.staff as unknown as Record<string, Record<string, { '~orpc': { route: { operationId: string } } }>>)[group]![
    key
  ]!
  return procedure['~orpc'].route.operationId
}

/** Every staff route of the contract (Better Auth's sign-in routes aside), its path ids naming nothing. */
const routes: Route[] = Object.entries((({ auth: _signIn, ...groups }) => groups)(contract.staff)).flatMap(([group, procedures]) =>
  Object.entries(procedures as Record<string, { '~orpc': { route: { method: string; path: string }; meta: EdgePolicy } }>).map(
    ([name, procedure]) => ({
      name: `${group}.${name}`,
      method: procedure['~orpc'].route.method,
      path: procedure['~orpc'].route.path.replace(/\{[^}]+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA'),
      role: procedure['~orpc'].meta.role,
    }),
  ),
)

describe('roles on every staff route', () => {
  it('when the contract is read, then every staff route declares its role, and the owners-only ones are those the issue names', () => {
    expect(routes.filter((route) => route.role === undefined).map((route) => route.name)).toEqual([])
    expect(
      routes
        .filter((route) => route.role === 'owner')
        .map((route) => route.name)
        .sort(),
    ).toEqual(
      [
        'audit.list',
        'events.delete',
        'members.invite',
        'members.list',
        'members.remove',
        'members.setRole',
        'members.getTeam',
        'members.updateTeam',
        'people.erase',
        'people.export',
        'people.find',
        'sessions.delete',
        'sets.delete',
      ].sort(),
    )
  })

  describe.each(routes)('$method $path ($name)', (route) => {
    it.each(STAFF_ROLES)('when a %s calls it, then it is refused with 403 exactly when the role is below the route’s', async (role) => {
      const response = await staffFetch(app, sessions[role], route.path, {
        method: route.method,
        ...(route.method === 'GET' ? {} : { body: {} }),
      })
      if (mayAct(role, route.role!)) {
        expect([401, 403], `${response.status} ${await response.clone().text()}`).not.toContain(response.status)
      } else {
        expect(response.status).toBe(403)
        expect(await response.json()).toEqual({
          error: `Your role (${role}) does not allow this: it needs ${route.role}`,
          code: 'insufficient_role',
        })
      }
    })
  })

  it('when every route has been called by every role, then every change is in the audit trail for each of them, refusals included', async () => {
    const changes = routes.filter((route) => route.method !== 'GET')
    const actions = await until(
      () =>
        app.orm.em
          .fork()
          .execute<{ member_id: string; action: string }[]>('select member_id, action from audit_event where member_id in (?)', [
            STAFF_ROLES.map((role) => sessions[role].memberId),
          ]),
      (rows) => rows.length >= changes.length * STAFF_ROLES.length,
    )
    for (const role of STAFF_ROLES) {
      const recorded = new Set(actions.filter((row) => row.member_id === sessions[role].memberId).map((row) => row.action))
      for (const route of changes) expect(recorded.has(operationIdOf(route.name)), `${role} ${route.name}`).toBe(true)
    }
  })

  it("when a manager creates or changes an event, then it works, but not the event's retention: that is the owners'", async () => {
    const created = await staffFetch(app, sessions.manager, '/staff/events', {
      method: 'POST',
      body: { slug: `roles-${Date.now()}`, name: 'Roles', startAt: Date.now() },
    })
    expect(created.status).toBe(201)
    const { id } = await created.json()
    expect((await staffFetch(app, sessions.manager, `/staff/events/${id}`, { method: 'PATCH', body: { name: 'Renamed' } })).status).toBe(
      200,
    )
    const retention = await staffFetch(app, sessions.manager, `/staff/events/${id}`, { method: 'PATCH', body: { retentionDays: 30 } })
    expect(retention.status).toBe(403)
    expect(await retention.json()).toEqual({
      error: 'Your role (manager) does not allow this: it needs owner (retentionDays)',
      code: 'insufficient_role',
    })
    expect((await staffFetch(app, sessions.owner, `/staff/events/${id}`, { method: 'PATCH', body: { retentionDays: 30 } })).status).toBe(
      200,
    )
  })

  it('when a manager moves the start of an event that holds guests later, then 403 (their data would be kept longer); earlier, or before any guest, it works', async () => {
    const startAt = Date.now()
    const created = await staffFetch(app, sessions.manager, '/staff/events', {
      method: 'POST',
      body: { slug: `later-${Date.now()}`, name: 'Later', startAt },
    })
    const { id } = await created.json()
    const move = (session: StaffSession, to: number) =>
      staffFetch(app, session, `/staff/events/${id}`, { method: 'PATCH', body: { startAt: to } })
    // No guest yet: setting the date up is a manager's work.
    expect((await move(sessions.manager, startAt + 86_400_000)).status).toBe(200)
    const set = await staffFetch(app, sessions.manager, `/staff/events/${id}/sets`, {
      method: 'POST',
      body: { slug: 'wall', name: 'Wall' },
    })
    await registerGuests(app, (await set.json()).id, [{ name: 'Ada', email: 'ada@example.org' }])
    const later = await move(sessions.manager, 253_402_200_000_000)
    expect([later.status, (await later.json()).code]).toEqual([403, 'insufficient_role'])
    expect((await move(sessions.manager, startAt)).status).toBe(200)
    expect((await move(sessions.owner, startAt + 86_400_000)).status).toBe(200)
  })
})

describe('the team', () => {
  const databases = scratchDatabases('roles')
  let team: TestServer
  beforeAll(async () => {
    team = await startTestServer({ databaseUrl: await databases.create() })
  })
  afterAll(async () => {
    await team?.stop()
    await databases.dropAll()
  })

  const member = async (role: StaffRole) => {
    const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.org`
    const created = await createStaffMember({ auth: team.auth }, { email, name: `The ${role}`, password: 'a long test password', role })
    const cookie = sessionCookie(await signIn(team, email, 'a long test password'))
    return {
      ...created,
      session: { memberId: created.id, email, password: '', cookie, headers: { cookie, origin: team.config.publicUrl } },
    }
  }

  it('when an owner invites, then the new member has the role given (staff unless said), and the listing shows each role', async () => {
    const owner = await member('owner')
    const invited = await staffFetch(team, owner.session, '/staff/members', {
      method: 'POST',
      body: { email: 'new.manager@example.org', name: 'New Manager', role: 'manager' },
    })
    expect(invited.status).toBe(201)
    expect((await invited.json()).member).toMatchObject({ email: 'new.manager@example.org', role: 'manager' })
    const plain = await staffFetch(team, owner.session, '/staff/members', {
      method: 'POST',
      body: { email: 'new.staff@example.org', name: 'New Staff' },
    })
    expect((await plain.json()).member.role).toBe('staff')
    const { members } = await (await staffFetch(team, owner.session, '/staff/members')).json()
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual(
      expect.arrayContaining([
        [owner.email, 'owner'],
        ['new.manager@example.org', 'manager'],
        ['new.staff@example.org', 'staff'],
      ]),
    )
  })

  it('when the last owner would be demoted or removed, then 409; with a second owner, either works, and a demoted owner acts as their new role at once', async () => {
    const { members } = await (await staffFetch(team, (await member('owner')).session, '/staff/members')).json()
    // Down to one owner: everyone else made staff by an owner, the first one demoting the others.
    const first = await member('owner')
    for (const m of members as { id: string; role: string }[]) {
      if (m.role === 'owner')
        expect((await staffFetch(team, first.session, `/staff/members/${m.id}`, { method: 'PATCH', body: { role: 'staff' } })).status).toBe(
          200,
        )
    }
    const last = await staffFetch(team, first.session, `/staff/members/${first.id}`, { method: 'PATCH', body: { role: 'manager' } })
    expect(last.status).toBe(409)
    expect(await last.json()).toEqual({ error: 'This is the last owner: make another member owner first', code: 'last_owner' })

    const second = await member('manager')
    const promoted = await staffFetch(team, first.session, `/staff/members/${second.id}`, { method: 'PATCH', body: { role: 'owner' } })
    expect(await promoted.json()).toMatchObject({ id: second.id, role: 'owner' })
    expect(
      (await staffFetch(team, first.session, `/staff/members/${first.id}`, { method: 'PATCH', body: { role: 'manager' } })).status,
    ).toBe(200)
    // Now a manager: the members' routes are closed to them on their very next request.
    expect((await staffFetch(team, first.session, '/staff/members')).status).toBe(403)
    // The remaining owner cannot leave the team without an owner either.
    const removeSelfLast = await staffFetch(team, second.session, `/staff/members/${second.id}`, {
      method: 'PATCH',
      body: { role: 'staff' },
    })
    expect(removeSelfLast.status).toBe(409)
    expect((await staffFetch(team, second.session, `/staff/members/${first.id}`, { method: 'DELETE' })).status).toBe(200)
  })
})
