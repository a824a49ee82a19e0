import { randomBytes } from 'node:crypto'

import { createLogger } from '@photobooth/server/logger'
import { AUTH_SCHEMA } from '@photobooth/server/modules/staff/auth-schema'
import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import { getMigrations } from 'better-auth/db/migration'
import pg from 'pg'
import { describe, expect, it, vi } from 'vitest'

import { startTestServer, type TestServer, withTestServer } from '../support/harness.js'
import { sessionCookie, signedInStaff, signIn, staffFetch } from '../support/staff.js'
import { testDatabaseUrl } from '../support/database-url.js'

const app = withTestServer()

async function newMember(server: TestServer = app) {
  const email = `member-${randomBytes(5).toString('hex')}@example.org`
  const password = randomBytes(18).toString('base64url')
  const member = await createStaffMember({ auth: server.auth }, { email, name: 'Member', password, role: 'owner' })
  return { ...member, password }
}

const me = (cookie: string, server: TestServer = app) => fetch(`${server.url}/staff/me`, { headers: { cookie } })

async function expectNoSession(response: Response) {
  expect(response.status).toBe(401)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  expect(await response.json()).toEqual({ error: 'Staff sign-in required', code: 'unauthorized' })
}

describe('POST /api/auth/sign-in/email', () => {
  it('when the email and password are right, then the answer sets an HttpOnly, SameSite=Lax session cookie that expires, and carries no token', async () => {
    const member = await newMember()
    const response = await signIn(app, member.email.toUpperCase(), member.password)
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({ redirect: false, user: expect.objectContaining({ id: member.id, email: member.email, name: 'Member' }) })
    expect(JSON.stringify(body)).not.toMatch(/token/i)
    const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith('photobooth.session_token='))!
    expect(line.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Lax'])
    // In development (plain http on localhost) the cookie cannot be Secure, or the browser would drop it.
    expect(line).not.toMatch(/Secure/)
    const current = await me(sessionCookie(response))
    expect(current.status).toBe(200)
    expect(await current.json()).toEqual({
      id: member.id,
      email: member.email,
      name: 'Member',
      role: 'owner',
      twoFactorEnabled: false,
      createdAt: member.createdAt,
    })
  })

  it('when the password or the email is wrong, then 401 { error } and no cookie', async () => {
    const member = await newMember()
    for (const [email, password] of [
      [member.email, `${member.password}x`],
      ['nobody@example.org', member.password],
    ] as const) {
      const response = await signIn(app, email, password)
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ error: 'Invalid email or password', code: 'unauthorized' })
      expect(response.headers.getSetCookie()).toEqual([])
    }
  })

  it('when the body is not a sign-in, then 400 { error }', async () => {
    for (const body of ['{}', '{"email":"a@example.org"}', '{"email":', '[]']) {
      const response = await fetch(`${app.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: app.url },
        body,
      })
      expect(response.status, body).toBe(400)
      expect(await response.json(), body).toEqual({ error: expect.any(String), code: 'bad_request' })
    }
  })

  it('when a page of another site posts a sign-in, then 403 and no session', async () => {
    const member = await newMember()
    const response = await fetch(`${app.url}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ email: member.email, password: member.password }),
    })
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({ error: expect.stringMatching(/origin/i), code: 'untrusted_origin' })
    expect(response.headers.getSetCookie()).toEqual([])
  })

  it('when sign-up is tried, then 404: sign-up is closed', async () => {
    const response = await fetch(`${app.url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url },
      body: JSON.stringify({ email: 'new@example.org', password: 'a-long-password-1', name: 'New' }),
    })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'Not Found', code: 'not_found' })
    const count = await app.orm.em.fork().execute<{ count: string }[]>(`select count(*) from staff_member where email = 'new@example.org'`)
    expect(count[0]!.count).toBe('0')
  })

  it('when a Better Auth route the contract does not list is asked, then the plain 404 of any unknown path', async () => {
    const staff = await signedInStaff(app)
    for (const [method, path] of [
      ['GET', '/api/auth/ok'],
      ['GET', '/api/auth/list-sessions'],
      ['POST', '/api/auth/update-user'],
      ['POST', '/api/auth/delete-user'],
      ['POST', '/api/auth/request-password-reset'],
    ] as const) {
      const response = await staffFetch(app, staff, path, { method, body: method === 'POST' ? {} : undefined })
      expect(response.status, path).toBe(404)
      expect(await response.json(), path).toEqual({ error: 'Not Found', code: 'not_found' })
    }
  })

  it('when the service runs in production, then the cookie is Secure and __Secure- prefixed', async () => {
    const production = await startTestServer({ mode: 'production', publicUrl: 'https://booth.example.com', storage: { kind: 'none' } })
    try {
      const member = await newMember(production)
      const response = await fetch(`${production.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://booth.example.com' },
        body: JSON.stringify({ email: member.email, password: member.password }),
      })
      expect(response.status).toBe(200)
      const line = response.headers.getSetCookie().find((cookie) => /session_token=/.test(cookie))!
      expect(line).toMatch(/^__Secure-photobooth\.session_token=/)
      expect(line.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Lax', 'Secure'])
    } finally {
      await production.stop()
    }
  })
})

describe('staff sessions end', () => {
  it('when a member signs out, then the cookie is cleared and the session no longer works, even replayed', async () => {
    const staff = await signedInStaff(app)
    expect((await me(staff.cookie)).status).toBe(200)
    const out = await staffFetch(app, staff, '/api/auth/sign-out', { method: 'POST' })
    expect(out.status).toBe(200)
    expect(await out.json()).toEqual({ success: true })
    expect(out.headers.getSetCookie().find((cookie) => cookie.startsWith('photobooth.session_token='))).toMatch(
      /^photobooth\.session_token=; Max-Age=0/,
    )
    await expectNoSession(await me(staff.cookie))
  })

  it('when a signed-in request to sign out comes without an Origin, then 403 and the session goes on', async () => {
    const staff = await signedInStaff(app)
    const out = await fetch(`${app.url}/api/auth/sign-out`, { method: 'POST', headers: { cookie: staff.cookie } })
    expect(out.status).toBe(403)
    expect((await me(staff.cookie)).status).toBe(200)
  })

  it('when a session has expired, then 401', async () => {
    const staff = await signedInStaff(app)
    await app.orm.em
      .fork()
      .execute(`update staff_session set expires_at = now() - interval '1 second' where staff_member_id = ?`, [staff.memberId])
    await expectNoSession(await me(staff.cookie))
  })

  it('when the cookie is tampered with, then 401', async () => {
    const staff = await signedInStaff(app)
    const [name, value] = staff.cookie.split('=') as [string, string]
    const [token, signature] = decodeURIComponent(value).split('.') as [string, string]
    const flipped = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1)
    for (const forged of [`${flipped(token)}.${signature}`, `${token}.${flipped(signature)}`, token]) {
      await expectNoSession(await me(`${name}=${encodeURIComponent(forged)}`))
    }
  })

  it('when a password is stored, then only a salted scrypt hash of it is', async () => {
    const member = await newMember()
    const [row] = await app.orm.em
      .fork()
      .execute<{ password: string }[]>(`select password from staff_account where staff_member_id = ? and provider_id = 'credential'`, [
        member.id,
      ])
    expect(row!.password).not.toContain(member.password)
    // Better Auth's scrypt format: a 16-byte salt and a 64-byte key, in hex.
    expect(row!.password).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/)
  })
})

describe('GET /api/auth/get-session', () => {
  it('when signed in, then the session and member without a token; signed out, null; HEAD answers as the GET, without a body', async () => {
    const staff = await signedInStaff(app)
    const current = await staffFetch(app, staff, '/api/auth/get-session')
    expect(current.status).toBe(200)
    const body = await current.json()
    expect(body).toMatchObject({ session: { expiresAt: expect.any(String) }, user: { id: staff.memberId, email: staff.email } })
    expect(JSON.stringify(body)).not.toMatch(/token/i)
    const nobody = await fetch(`${app.url}/api/auth/get-session`)
    expect([nobody.status, await nobody.json()]).toEqual([200, null])
    const head = await fetch(`${app.url}/api/auth/get-session`, { method: 'HEAD', headers: { cookie: staff.cookie } })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await head.text()).toBe('')
  })
})

describe("Better Auth's log", () => {
  it("when a client is refused, then the service's log has one info line of it, and Better Auth writes nothing of its own", async () => {
    const lines: string[] = []
    const logged = await startTestServer({}, { logger: createLogger({ write: (line) => void lines.push(line) }) })
    const written: string[] = []
    // Whatever writes to the terminal, by the console or the streams.
    const keep = (...parts: unknown[]) => void written.push(parts.map(String).join(' '))
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0),
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0),
      ...(['log', 'info', 'warn', 'error'] as const).map((method) => vi.spyOn(console, method).mockImplementation(keep)),
    ]
    try {
      const member = await newMember(logged)
      const response = await fetch(`${logged.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
        body: JSON.stringify({ email: member.email, password: member.password }),
      })
      expect(response.status).toBe(403)
    } finally {
      spies.forEach((spy) => spy.mockRestore())
      await logged.stop()
    }
    expect(written.filter((text) => /Better Auth/.test(text))).toEqual([])
    const records = lines.map((line) => JSON.parse(line) as { level: string; message: string })
    const refusals = records.filter((record) => record.message.startsWith('auth:'))
    expect(refusals.map((record) => record.message)).toContainEqual(expect.stringMatching(/^auth: Invalid origin: https:\/\/evil\.example/))
    expect(new Set(refusals.map((record) => record.level))).toEqual(new Set(['info']))
    expect(records.some((record) => record.level === 'error')).toBe(false)
  })
})

describe("Better Auth's tables", () => {
  it('when the database is migrated, then Better Auth finds nothing of its schema missing', async () => {
    const pool = new pg.Pool({ connectionString: testDatabaseUrl() })
    try {
      const { toBeCreated, toBeAdded, compileMigrations } = await getMigrations({
        ...AUTH_SCHEMA,
        database: pool,
        emailAndPassword: { enabled: true },
      })
      expect({ toBeCreated, toBeAdded }).toEqual({ toBeCreated: [], toBeAdded: [] })
      expect((await compileMigrations()).trim()).toBe(';')
    } finally {
      await pool.end()
    }
  })
})
