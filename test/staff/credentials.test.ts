/**
 * Staff credentials (issue 22): passwords too easy to guess are refused (zxcvbn-ts, offline), when
 * inviting and when changing; change-password is rate limited like sign-in; an invited member must
 * change the password someone else chose before any staff route opens.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'
import { sessionCookie, signedInStaff, signIn, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer({ rateLimits: { windowMs: 60_000, clientIpHeader: 'x-test-client-ip' } })
let owner: StaffSession
beforeAll(async () => {
  owner = await signedInStaff(app, 'Owner')
})

const invite = (body: Record<string, unknown>) => staffFetch(app, owner, '/staff/members', { method: 'POST', body })
let refusedInvites = 0
const newEmail = () => `cred-${Math.random().toString(36).slice(2, 10)}@example.org`

const changePassword = (session: { cookie: string }, body: Record<string, unknown>, ip = '198.51.100.77') =>
  fetch(`${app.url}/api/auth/change-password`, {
    method: 'POST',
    headers: { cookie: session.cookie, origin: app.config.publicUrl, 'content-type': 'application/json', 'x-test-client-ip': ip },
    body: JSON.stringify(body),
  })

describe('staff credentials', () => {
  it('when a member changes their password on one device, then every other device is signed out, though the change did not ask for it', async () => {
    const email = newEmail()
    const { password } = await (await invite({ email, name: 'Two Devices', role: 'staff' })).json()
    // From addresses of their own: the file's other sign-ins share the limit of 10 a minute.
    const laptop = sessionCookie(await signIn(app, email, password, { 'x-test-client-ip': '203.0.113.21' }))
    const phone = sessionCookie(await signIn(app, email, password, { 'x-test-client-ip': '203.0.113.22' }))
    const me = (cookie: string) => fetch(`${app.url}/staff/me`, { headers: { cookie } })
    expect([(await me(laptop)).status, (await me(phone)).status]).toEqual([200, 200])

    const changed = await changePassword(
      { cookie: laptop },
      { currentPassword: password, newPassword: 'amber walrus lantern fjord', revokeOtherSessions: false },
    )
    expect(changed.status).toBe(200)
    expect((await me(phone)).status).toBe(401)
    expect((await me(sessionCookie(changed))).status).toBe(200)
  })

  it('when an invited member has not yet changed the password someone else chose, then setting up a second factor is refused too', async () => {
    const email = newEmail()
    const { password } = await (await invite({ email, name: 'Not Yet', role: 'staff' })).json()
    const cookie = sessionCookie(await signIn(app, email, password, { 'x-test-client-ip': '203.0.113.23' }))
    const enable = await fetch(`${app.url}/api/auth/two-factor/enable`, {
      method: 'POST',
      headers: { cookie, origin: app.config.publicUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ password }),
    })
    expect([enable.status, await enable.json()]).toEqual([
      403,
      { error: 'Change the password you were invited with first: POST /api/auth/change-password', code: 'password_change_required' },
    ])
    expect((await (await fetch(`${app.url}/staff/me`, { headers: { cookie } })).json()).twoFactorEnabled).toBe(false)
  })

  it.each([
    'aaaaaaaaaaaa',
    'password1234',
    'qwertyuiop12',
    'letmein12345',
    '123456789012',
    'iloveyou2026',
    // Passphrases everybody has read (issue 35, item 9): zxcvbn alone scored each of these strong.
    'correcthorsebatterystaple',
    'Correct-Horse Battery_Staple!',
    'xCorrectHorseBatteryStaple99',
    'c0rrecth0rseb4tterystaple',
    'maytheforcebewithyou',
  ])('when an owner invites with the password %j, then 400 says why and nobody is made', async (password) => {
    const email = newEmail()
    const response = await invite({ email, name: 'Grace Hopper', password })
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/^This password is too easy to guess/)
    // From an address of its own: the file's other sign-ins share the limit of 10 a minute.
    expect((await signIn(app, email, password, { 'x-test-client-ip': `203.0.113.${100 + ++refusedInvites}` })).status).toBe(401)
  })

  it('when an invited member signs in, then every staff route but /staff/me answers 403 until they change the password; a weak new one is refused, a strong one opens the routes', async () => {
    const email = newEmail()
    const invited = await invite({ email, name: 'New Member', role: 'manager' })
    expect(invited.status).toBe(201)
    const { password } = await invited.json()
    const cookie = sessionCookie(await signIn(app, email, password))
    const headers = { cookie, origin: app.config.publicUrl }
    expect((await fetch(`${app.url}/staff/me`, { headers })).status).toBe(200)
    const closed = await fetch(`${app.url}/staff/events`, { headers })
    expect([closed.status, await closed.json()]).toEqual([
      403,
      { error: 'Change the password you were invited with first: POST /api/auth/change-password', code: 'password_change_required' },
    ])

    const weak = await changePassword({ cookie }, { currentPassword: password, newPassword: 'password12345' })
    expect(weak.status).toBe(400)
    expect((await weak.json()).error).toMatch(/^This password is too easy to guess/)
    expect((await fetch(`${app.url}/staff/events`, { headers })).status).toBe(403)

    const changed = await changePassword({ cookie }, { currentPassword: password, newPassword: 'pale violet kettle orbit' })
    expect(changed.status).toBe(200)
    // The answer tells the dashboard the routes are open now, on the session the change renewed.
    expect((await changed.json()).user).toMatchObject({ email, mustChangePassword: false })
    const renewed = { cookie: sessionCookie(changed), origin: app.config.publicUrl }
    expect((await fetch(`${app.url}/staff/events`, { headers: renewed })).status).toBe(200)
    expect((await signIn(app, email, 'pale violet kettle orbit')).status).toBe(200)
  })

  it('when change-password is tried 11 times in a minute from one address, then the 11th answers 429', async () => {
    const statuses = []
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await changePassword(
            owner,
            { currentPassword: 'not my password at all', newPassword: 'pale violet kettle orbit' },
            '198.51.100.88',
          )
        ).status,
      )
    }
    expect(statuses).toEqual([...Array<number>(10).fill(400), 429])
  })
})
