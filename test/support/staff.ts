import { randomBytes } from 'node:crypto'

import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import type { RunningServer } from '@photobooth/server/server'

import { startTestServer, type TestServer } from './harness.js'
import type { StaffRole } from '@photobooth/server/modules/staff/roles'

export type StaffSession = {
  memberId: string
  email: string
  password: string
  /** The `Cookie` header value a browser would send. */
  cookie: string
  /** What a page of the service's own origin sends with a change: the cookie and its `Origin`. */
  headers: { cookie: string; origin: string }
}

/** The session cookie out of a sign-in's `Set-Cookie` headers, as a `Cookie` header value. */
export function sessionCookie(response: { headers: Headers; status: number }): string {
  const cookie = response.headers.getSetCookie().find((line) => /session_token=/.test(line))
  if (!cookie) throw new Error(`no session cookie in the answer (status ${response.status})`)
  return cookie.split(';')[0]!
}

/** Signs in over HTTP as a browser of the service's own origin would (with `headers`: a client address header, say). */
export async function signIn(app: RunningServer, email: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${app.url}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.config.publicUrl, ...headers },
    body: JSON.stringify({ email, password }),
  })
}

/**
 * A new staff member of this server's database (an owner unless said), signed in through Better Auth's own sign-in (the
 * same endpoint, without HTTP: the 10-a-minute limit on sign-in is tested on its own, not here).
 */
export async function signedInStaff(app: RunningServer, name = 'Test Staff', role: StaffRole = 'owner'): Promise<StaffSession> {
  const email = `staff-${randomBytes(5).toString('hex')}@example.org`
  const password = randomBytes(18).toString('base64url')
  const member = await createStaffMember({ auth: app.auth }, { email, name, password, role })
  const { headers } = await app.auth.api.signInEmail({ body: { email, password }, returnHeaders: true })
  const cookie = sessionCookie({ headers, status: 200 })
  return { memberId: member.id, email, password, cookie, headers: { cookie, origin: new URL(app.config.publicUrl).origin } }
}

/** A staff request with the session cookie and the service's own origin; a body is sent as JSON. */
export function staffFetch(
  app: RunningServer,
  session: StaffSession,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const { method = 'GET', body, headers = {} } = init
  return fetch(`${app.url}${path}`, {
    method,
    headers: { ...session.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** A test server of the file's own, with a staff member signed in on it. */
export async function startStaffTestServer(...args: Parameters<typeof startTestServer>): Promise<{ app: TestServer; staff: StaffSession }> {
  const app = await startTestServer(...args)
  return { app, staff: await signedInStaff(app) }
}
