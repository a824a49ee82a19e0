import { randomBytes } from 'node:crypto'

import { beforeAll, describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'
import { sessionCookie, signedInStaff, signIn, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let staff: StaffSession
beforeAll(async () => {
  staff = await signedInStaff(app, 'Ada Admin')
})

const newEmail = () => `invitee-${randomBytes(5).toString('hex')}@example.org`
const staffRows = async (email: string) =>
  Number((await app.orm.em.fork().execute<{ count: string }[]>('select count(*) from staff_member where email = ?', [email]))[0]!.count)

describe('GET /staff/me and /staff/members', () => {
  it('when a member asks who they are, then their id, email, name and creation time', async () => {
    const response = await staffFetch(app, staff, '/staff/me')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      id: staff.memberId,
      email: staff.email,
      name: 'Ada Admin',
      role: 'owner',
      twoFactorEnabled: false,
      createdAt: expect.any(Number),
    })
  })

  it('when the members are listed, then every one, oldest first, with no password or hash', async () => {
    const later = await signedInStaff(app, 'Later Member')
    const response = await staffFetch(app, staff, '/staff/members')
    expect(response.status).toBe(200)
    const { members } = (await response.json()) as { members: { id: string; createdAt: number }[] }
    const ids = members.map((member) => member.id)
    expect(ids.indexOf(staff.memberId)).toBeLessThan(ids.indexOf(later.memberId))
    expect(members.map((member) => member.createdAt)).toEqual([...members.map((member) => member.createdAt)].sort((a, b) => a - b))
    expect(Object.keys(members[0]!).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'role', 'twoFactorEnabled'])
  })
})

describe('POST /staff/members', () => {
  it('when a member is invited without a password, then a one-time password is answered once and signs them in', async () => {
    const email = newEmail()
    const response = await staffFetch(app, staff, '/staff/members', { method: 'POST', body: { email, name: 'Grace' } })
    expect(response.status).toBe(201)
    const body = (await response.json()) as { member: { id: string; email: string }; password: string }
    expect(body).toEqual({
      member: { id: expect.any(String), email, name: 'Grace', role: 'staff', twoFactorEnabled: false, createdAt: expect.any(Number) },
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    })
    const signedIn = await signIn(app, email, body.password)
    expect(signedIn.status).toBe(200)

    // The new member changes the one-time password; the old one then no longer works.
    const cookie = sessionCookie(signedIn)
    const changed = await fetch(`${app.url}/api/auth/change-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: app.url },
      body: JSON.stringify({ currentPassword: body.password, newPassword: 'a brand new passphrase' }),
    })
    expect(changed.status).toBe(200)
    expect(JSON.stringify(await changed.json())).not.toMatch(/token/i)
    expect((await signIn(app, email, body.password)).status).toBe(401)
    expect((await signIn(app, email, 'a brand new passphrase')).status).toBe(200)
  })

  it('when a member is invited with a password, then it is not answered and it signs them in', async () => {
    const email = newEmail()
    const response = await staffFetch(app, staff, '/staff/members', {
      method: 'POST',
      body: { email: email.toUpperCase(), name: 'Alan', password: 'correct horse battery' },
    })
    expect(response.status).toBe(201)
    expect(await response.json()).toEqual({
      member: { id: expect.any(String), email, name: 'Alan', role: 'staff', twoFactorEnabled: false, createdAt: expect.any(Number) },
    })
    expect((await signIn(app, email, 'correct horse battery')).status).toBe(200)
  })

  it('when the email is taken, then 409 and no second member', async () => {
    const response = await staffFetch(app, staff, '/staff/members', { method: 'POST', body: { email: staff.email, name: 'Twin' } })
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ error: `A staff member with the email ${staff.email} already exists`, code: 'email_taken' })
    expect(await staffRows(staff.email)).toBe(1)
  })

  it('when the same email is invited six times at once, then one 201 and five 409, and one member', async () => {
    const email = newEmail()
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => staffFetch(app, staff, '/staff/members', { method: 'POST', body: { email, name: 'Race' } })),
    )
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409])
    for (const response of responses.filter((answer) => answer.status === 409)) {
      expect(await response.json()).toEqual({ error: `A staff member with the email ${email} already exists`, code: 'email_taken' })
    }
    expect(await staffRows(email)).toBe(1)
  })

  it('when the invitation is malformed, then 400 in the validator shape and nobody is created', async () => {
    const email = newEmail()
    for (const body of [
      { email: 'not-an-email', name: 'X' },
      { email, name: '' },
      { email, name: 'X', password: 'short' },
      { email, name: 'X', role: 'admin' },
    ]) {
      const response = await staffFetch(app, staff, '/staff/members', { method: 'POST', body })
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(await response.json()).toMatchObject({ success: false, error: { name: 'ZodError' } })
    }
    expect(await staffRows(email)).toBe(0)
  })
})

describe('DELETE /staff/members/:id', () => {
  it('when a member is removed, then their sessions end at once and they cannot sign in', async () => {
    const leaving = await signedInStaff(app, 'Leaving')
    expect((await staffFetch(app, leaving, '/staff/me')).status).toBe(200)
    const response = await staffFetch(app, staff, `/staff/members/${leaving.memberId}`, { method: 'DELETE' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ removed: leaving.memberId })
    expect((await staffFetch(app, leaving, '/staff/me')).status).toBe(401)
    expect((await signIn(app, leaving.email, leaving.password)).status).toBe(401)
    const [rows] = await app.orm.em
      .fork()
      .execute<{ sessions: string; accounts: string }[]>(
        'select (select count(*) from staff_session where staff_member_id = ?) as sessions, (select count(*) from staff_account where staff_member_id = ?) as accounts',
        [leaving.memberId, leaving.memberId],
      )
    expect(rows).toEqual({ sessions: '0', accounts: '0' })
  })

  it('when two members remove each other at the same moment, then one removal is made and the other refused: someone is left', async () => {
    const [a, b] = await Promise.all([signedInStaff(app, 'A'), signedInStaff(app, 'B')])
    const [byA, byB] = await Promise.all([
      staffFetch(app, a, `/staff/members/${b.memberId}`, { method: 'DELETE' }),
      staffFetch(app, b, `/staff/members/${a.memberId}`, { method: 'DELETE' }),
    ])
    expect([byA.status, byB.status].sort()).toEqual([200, 409])
    const refused = byA.status === 409 ? byA : byB
    expect(await refused.json()).toEqual({ error: 'You were removed by another staff member meanwhile', code: 'concurrent_change' })
    const left = await app.orm.em
      .fork()
      .execute<{ id: string }[]>('select id from staff_member where id in (?, ?)', [a.memberId, b.memberId])
    expect(left).toHaveLength(1)
  })

  it('when members try to remove themselves, then 409 and they stay', async () => {
    const response = await staffFetch(app, staff, `/staff/members/${staff.memberId}`, { method: 'DELETE' })
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({ error: 'You cannot remove yourself; ask another owner', code: 'cannot_remove_self' })
    expect((await staffFetch(app, staff, '/staff/me')).status).toBe(200)
  })

  it('when the id names nobody, then 404', async () => {
    const response = await staffFetch(app, staff, '/staff/members/nobody', { method: 'DELETE' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such staff member', code: 'no_such_member' })
  })
})
