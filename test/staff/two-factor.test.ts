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
  // Each request from an address of its own: this file signs in more often than 10 times a minute.
  app = await startTestServer({
    databaseUrl: await databases.create(),
    rateLimits: { windowMs: 60_000, clientIpHeader: 'x-test-client-ip' },
  })
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
    headers: {
      'content-type': 'application/json',
      origin: app.config.publicUrl,
      'x-test-client-ip': `198.51.100.${Math.floor(Math.random() * 250) + 1}`,
      ...(cookie ? { cookie } : {}),
    },
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
  const setUpCode = totpCode(totpURI)
  const confirmed = await auth('two-factor/verify-totp', { code: setUpCode }, cookie)
  expect(confirmed.status).toBe(200)
  const renewed = confirmed.headers.getSetCookie().some((line) => /session_token=[^;]/.test(line))
  return { totpURI, backupCodes, setUpCode, cookie: renewed ? sessionCookie(confirmed) : cookie }
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
    // The next step's code: the set-up used this step's, and a code is accepted once.
    const verified = await auth('two-factor/verify-totp', { code: totpCode(totpURI, Date.now() + 30_000) }, pending)
    expect(verified.status).toBe(200)
    expect(JSON.stringify(await verified.json())).not.toMatch(/token/)
    expect((await me(sessionCookie(verified))).status).toBe(200)
  })

  it('when a code from the app is used for a second sign-in, then it is refused and makes no session; the next code works', async () => {
    const { email, cookie: before } = await member('staff')
    const { totpURI, setUpCode } = await setUp(before)
    const code = totpCode(totpURI, Date.now() + 30_000)
    const first = await auth('two-factor/verify-totp', { code }, cookiesOf(await auth('sign-in/email', { email, password: PASSWORD })))
    expect(first.status).toBe(200)

    const pending = cookiesOf(await auth('sign-in/email', { email, password: PASSWORD }))
    const again = await auth('two-factor/verify-totp', { code }, pending)
    expect([again.status, await again.json()]).toEqual([
      401,
      { error: 'This code was already used: enter the next one your app shows', code: 'code_already_used' },
    ])
    expect(again.headers.getSetCookie().some((line) => /session_token=[^;]/.test(line))).toBe(false)
    const sessions = await app.orm.em
      .fork()
      .execute<{ n: number }[]>(
        'select count(*)::int as n from staff_session s join staff_member u on u.id = s.staff_member_id where u.email = ?',
        [email],
      )
    // The set-up's and the first sign-in's: the refused one left none behind.
    expect(sessions[0]!.n).toBe(2)
    // The refused attempt spent that sign-in (Better Auth had accepted the code): the member signs in again,
    // with a code of the window (a step either side of now) that neither the set-up nor the first sign-in
    // used, the latest first: it stays valid longest on a slow machine.
    const retry = cookiesOf(await auth('sign-in/email', { email, password: PASSWORD }))
    const unused = [30_000, 0, -30_000].map((offset) => totpCode(totpURI, Date.now() + offset)).find((c) => c !== code && c !== setUpCode)!
    const next = await auth('two-factor/verify-totp', { code: unused }, retry)
    expect(next.status).toBe(200)
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
