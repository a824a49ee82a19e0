/**
 * A second factor for staff (issue 22): Better Auth's two-factor plugin (TOTP with backup codes), on
 * the contract's routes; a sign-in then asks for a code before it makes a session; an owner can
 * require one of every member.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createStaffMember } from '@photobooth/server/modules/members/members.service'

import { scratchDatabases } from '../support/databases.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { sessionCookie, signedInStaff } from '../support/staff.js'
import { totpCode } from '../support/totp.js'

const databases = scratchDatabases('two_factor')
let app: TestServer
beforeAll(async () => {
  // A team of its own: requiring a second factor holds for every member of the database.
  app = await startTestServer({ databaseUrl: await databases.create() })
})
afterAll(async () => {
  await app?.stop()
  await databases.dropAll()
})

const PASSWORD = 'pale violet kettle orbit'

/** POST to a sign-in route with the cookies given (a session, or a pending second factor's). */
const auth = (path: string, body: unknown, cookie?: string) =>
  fetch(`${app.url}/api/auth/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.config.publicUrl, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  })

/** Every cookie an answer set, as one Cookie header. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')

async function member(role: 'owner' | 'staff') {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.org`
  await createStaffMember({ auth: app.auth }, { email, name: `The ${role}`, password: PASSWORD, role })
  const cookie = sessionCookie(await auth('sign-in/email', { email, password: PASSWORD }))
  return { email, cookie }
}

/**
 * Sets up an authenticator for the member signed in with `cookie`: its URI, backup codes, and the
 * session's new cookie (the confirmation renews the session).
 */
async function setUp(cookie: string) {
  const enabled = await auth('two-factor/enable', { password: PASSWORD }, cookie)
  expect(enabled.status).toBe(200)
  const { totpURI, backupCodes } = (await enabled.json()) as { totpURI: string; backupCodes: string[] }
  expect(totpURI).toMatch(/^otpauth:\/\/totp\//)
  const confirmed = await auth('two-factor/verify-totp', { code: totpCode(totpURI) }, cookie)
  expect(confirmed.status).toBe(200)
  const renewed = confirmed.headers.getSetCookie().some((line) => /session_token=[^;]/.test(line))
  return { totpURI, backupCodes, cookie: renewed ? sessionCookie(confirmed) : cookie }
}

const me = async (cookie: string) => fetch(`${app.url}/staff/me`, { headers: { cookie } })

describe('a second factor', () => {
  it('when a member has set one up, then a sign-in makes no session until a code from the app is given; a wrong code is refused', async () => {
    const { email, cookie: before } = await member('owner')
    const { totpURI, cookie } = await setUp(before)
    expect(await (await me(cookie)).json()).toMatchObject({ email, twoFactorEnabled: true })

    const signIn = await auth('sign-in/email', { email, password: PASSWORD })
    expect(signIn.status).toBe(200)
    expect(await signIn.json()).toMatchObject({ twoFactorRedirect: true, twoFactorMethods: ['totp'] })
    const pending = cookiesOf(signIn)
    expect(pending).not.toMatch(/session_token=[^;]/)
    expect((await me(pending)).status).toBe(401)

    const wrong = await auth('two-factor/verify-totp', { code: totpCode(totpURI) === '000000' ? '111111' : '000000' }, pending)
    expect(wrong.status).toBe(401)
    const verified = await auth('two-factor/verify-totp', { code: totpCode(totpURI) }, pending)
    expect(verified.status).toBe(200)
    expect(JSON.stringify(await verified.json())).not.toMatch(/token/)
    expect((await me(sessionCookie(verified))).status).toBe(200)
  })

  it('when the app is lost, then a backup code completes the sign-in once', async () => {
    const { email, cookie } = await member('owner')
    const { backupCodes } = await setUp(cookie)
    const pending = cookiesOf(await auth('sign-in/email', { email, password: PASSWORD }))
    const used = await auth('two-factor/verify-backup-code', { code: backupCodes[0] }, pending)
    expect(used.status).toBe(200)
    expect((await me(sessionCookie(used))).status).toBe(200)
    const again = cookiesOf(await auth('sign-in/email', { email, password: PASSWORD }))
    expect((await auth('two-factor/verify-backup-code', { code: backupCodes[0] }, again)).status).toBe(401)
  })

  it('when an owner requires a second factor of the team, then a member without one is held at /staff/me until they set it up; the owner must have one first', async () => {
    const owner = await member('owner')
    const staff = await member('staff')
    const team = (cookie: string, requireTwoFactor: boolean) =>
      fetch(`${app.url}/staff/team`, {
        method: 'PATCH',
        headers: { cookie, origin: app.config.publicUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ requireTwoFactor }),
      })
    const tooSoon = await team(owner.cookie, true)
    expect([tooSoon.status, await tooSoon.json()]).toEqual([
      409,
      { error: 'Set up your own second factor first (POST /api/auth/two-factor/enable)', code: 'own_two_factor_required' },
    ])
    const ownerCookie = (await setUp(owner.cookie)).cookie
    expect(await (await team(ownerCookie, true)).json()).toEqual({ requireTwoFactor: true })

    // Another database's team (another deployment, in this same process) is not bound by this one's rule.
    const other = await startTestServer()
    try {
      const elsewhere = await signedInStaff(other, 'Elsewhere', 'staff')
      expect((await fetch(`${other.url}/staff/events`, { headers: { cookie: elsewhere.cookie } })).status).toBe(200)
    } finally {
      await other.stop()
    }
    const held = await fetch(`${app.url}/staff/events`, { headers: { cookie: staff.cookie } })
    expect([held.status, await held.json()]).toEqual([
      403,
      { error: 'Your team requires a second factor: set one up first (POST /api/auth/two-factor/enable)', code: 'two_factor_required' },
    ])
    expect((await me(staff.cookie)).status).toBe(200)
    const staffCookie = (await setUp(staff.cookie)).cookie
    expect((await fetch(`${app.url}/staff/events`, { headers: { cookie: staffCookie } })).status).toBe(200)
    expect(await (await team(ownerCookie, false)).json()).toEqual({ requireTwoFactor: false })
  })
})
