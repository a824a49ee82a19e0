import { contract } from '@photobooth/sdk/contract'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, startTestServer, uniqueSlug, withTestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let staff: StaffSession
let signedOut: StaffSession
let expired: StaffSession
let removed: StaffSession
let boothKey: string
beforeAll(async () => {
  staff = await signedInStaff(app, 'Valid')
  signedOut = await signedInStaff(app, 'Signed out')
  expect((await staffFetch(app, signedOut, '/api/auth/sign-out', { method: 'POST' })).status).toBe(200)
  expired = await signedInStaff(app, 'Expired')
  await app.orm.em
    .fork()
    .execute(`update staff_session set expires_at = now() - interval '1 second' where staff_member_id = ?`, [expired.memberId])
  removed = await signedInStaff(app, 'Removed')
  expect((await staffFetch(app, staff, `/staff/members/${removed.memberId}`, { method: 'DELETE' })).status).toBe(200)
  boothKey = await createTestBoothKey(app, 'Not staff')
})

type Route = { name: string; method: string; path: string }

/** Every staff route of the contract (Better Auth's own sign-in routes aside), path ids naming nothing. */
function staffRoutes(): Route[] {
  const { auth: _signIn, ...groups } = contract.staff
  return Object.entries(groups).flatMap(([group, procedures]) =>
    Object.entries(procedures as Record<string, { '~orpc': { route: { method: string; path: string } } }>).map(([name, procedure]) => {
      const { method, path } = procedure['~orpc'].route
      return { name: `${group}.${name}`, method, path: path.replace(/\{[^}]+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA') }
    }),
  )
}

const routes = staffRoutes()
const CHANGES = new Set(['POST', 'PATCH', 'PUT', 'DELETE'])

/** The route's own answer to a signed-in member, for ids that name nothing and the body `{}`: only a request past authentication gets it. */
const OWN_ANSWER: Record<string, { status: number; error?: string; code?: string }> = {
  'events.list': { status: 200 },
  'events.get': { status: 404, error: 'no such event', code: 'no_such_event' },
  'events.create': { status: 400 },
  'events.update': { status: 400 },
  'events.delete': { status: 404, error: 'no such event', code: 'no_such_event' },
  'events.stats': { status: 404, error: 'no such event', code: 'no_such_event' },
  'events.exportGuests': { status: 404, error: 'no such event', code: 'no_such_event' },
  'sets.create': { status: 400 },
  'sets.update': { status: 400 },
  'sets.delete': { status: 404, error: 'no such set', code: 'no_such_set' },
  'boothKeys.list': { status: 200 },
  'boothKeys.create': { status: 400 },
  'boothKeys.revoke': { status: 404, error: 'no such booth key', code: 'no_such_booth_key' },
  'sessions.list': { status: 404, error: 'no such event', code: 'no_such_event' },
  'sessions.get': { status: 404, error: 'no such session', code: 'no_such_session' },
  'sessions.guestContact': { status: 404, error: 'no such guest', code: 'no_such_guest' },
  'sessions.stats': { status: 404, error: 'no such session', code: 'no_such_session' },
  'sessions.resend': { status: 404, error: 'no such session', code: 'no_such_session' },
  'sessions.cancel': { status: 404, error: 'no such session', code: 'no_such_session' },
  'sessions.delete': { status: 404, error: 'no such session', code: 'no_such_session' },
  'messages.retry': { status: 404, error: 'no such message', code: 'no_such_message' },
  'messages.retrySession': { status: 404, error: 'no such session', code: 'no_such_session' },
  'messages.retryEvent': { status: 404, error: 'no such event', code: 'no_such_event' },
  'messages.findSuppressions': { status: 400 },
  'messages.liftSuppression': { status: 400 },
  'members.me': { status: 200 },
  'members.list': { status: 200 },
  'members.invite': { status: 400 },
  'members.remove': { status: 404, error: 'no such staff member', code: 'no_such_member' },
  'members.setRole': { status: 400 },
  'members.getTeam': { status: 200 },
  'members.updateTeam': { status: 400 },
  'audit.list': { status: 200 },
  'people.find': { status: 400 },
  'people.export': { status: 404, error: 'no such person', code: 'no_such_person' },
  'people.erase': { status: 404, error: 'no such person', code: 'no_such_person' },
}

function call(route: Route, headers: Record<string, string>) {
  const sendsBody = route.method !== 'GET'
  return fetch(`${app.url}${route.path}`, {
    method: route.method,
    headers: { ...(sendsBody ? { 'content-type': 'application/json' } : {}), ...headers },
    body: sendsBody ? '{}' : undefined,
  })
}

async function expectNoSession(response: Response) {
  expect(response.status).toBe(401)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  expect(await response.json()).toEqual({ error: 'Staff sign-in required', code: 'unauthorized' })
}

const origin = () => new URL(app.config.publicUrl).origin

it('when the contract is read, then every staff route has its expected answer listed here', () => {
  expect(routes.map((route) => route.name).sort()).toEqual(Object.keys(OWN_ANSWER).sort())
})

describe.each(routes)('staff auth on $method $path', (route) => {
  it('when no cookie is sent, then 401 { error }', async () => {
    await expectNoSession(await call(route, { origin: origin() }))
  })

  it('when the session was signed out, then 401', async () => {
    await expectNoSession(await call(route, signedOut.headers))
  })

  it('when the session has expired, then 401', async () => {
    await expectNoSession(await call(route, expired.headers))
  })

  it('when the member was removed, then 401', async () => {
    await expectNoSession(await call(route, removed.headers))
  })

  it('when the cookie is tampered with, then 401', async () => {
    const [name, value] = staff.cookie.split('=') as [string, string]
    const tampered = `${name}=${value.slice(0, 5)}${value[5] === 'A' ? 'B' : 'A'}${value.slice(6)}`
    await expectNoSession(await call(route, { cookie: tampered, origin: origin() }))
  })

  it('when a booth key is sent instead of a staff session, then 401', async () => {
    await expectNoSession(await call(route, { authorization: `Bearer ${boothKey}`, origin: origin() }))
  })

  if (CHANGES.has(route.method)) {
    it('when a signed-in change comes from another origin, or names none, then 403 { error }', async () => {
      const refusals: Record<string, string>[] = [
        { cookie: staff.cookie, origin: 'https://evil.example' },
        { cookie: staff.cookie, origin: 'null' },
        // An opaque origin is not made good by a Referer of ours.
        { cookie: staff.cookie, origin: 'null', referer: `${origin()}/dashboard` },
        { cookie: staff.cookie, referer: 'https://evil.example/page' },
        { cookie: staff.cookie },
      ]
      for (const headers of refusals) {
        const response = await call(route, headers)
        expect(response.status, JSON.stringify(headers)).toBe(403)
        expect(await response.json()).toEqual({ error: expect.stringMatching(/origin/i), code: 'untrusted_origin' })
      }
    })
  }

  it('when the session is valid, then the route itself answers', async () => {
    const expected = OWN_ANSWER[route.name]!
    const response = await call(route, staff.headers)
    expect(response.status).toBe(expected.status)
    // Staff answers hold guests' contact details: nothing may cache them.
    expect(response.headers.get('cache-control')).toBe('private, no-store')
    if (expected.status === 400) expect(await response.json()).toMatchObject({ success: false, error: { name: 'ZodError' } })
    if (expected.error) expect(await response.json()).toEqual({ error: expected.error, code: expected.code })
  })
})

describe('staff sessions and booth keys stay apart', () => {
  it('when a staff cookie is sent to a booth route, then the booth answers 401 Unauthorized', async () => {
    const response = await fetch(`${app.url}/booth/events`, { headers: staff.headers })
    expect(response.status).toBe(401)
    expect(await response.text()).toBe('Unauthorized')
  })

  it('when a page of another site posts a change with a valid cookie, then 403 and nothing is written', async () => {
    const slug = uniqueSlug()
    const response = await staffFetch(app, staff, '/staff/events', {
      method: 'POST',
      body: { slug, name: 'Forged', startAt: Date.now() },
      headers: { origin: 'https://evil.example' },
    })
    expect(response.status).toBe(403)
    const [row] = await app.orm.em.fork().execute<{ count: string }[]>('select count(*) from event where slug = ?', [slug])
    expect(row!.count).toBe('0')
    // The same change from the service's own origin is made.
    expect(
      (await staffFetch(app, staff, '/staff/events', { method: 'POST', body: { slug, name: 'Real', startAt: Date.now() } })).status,
    ).toBe(201)
  })

  it('when a trusted dashboard origin is configured, then its changes are accepted', async () => {
    const dashboard = await startTestServer({ staffAuth: { secret: 'a'.repeat(32), trustedOrigins: ['https://dashboard.example.com'] } })
    try {
      const member = await signedInStaff(dashboard)
      const slug = uniqueSlug()
      const response = await staffFetch(dashboard, member, '/staff/events', {
        method: 'POST',
        body: { slug, name: 'From the dashboard', startAt: Date.now() },
        headers: { origin: 'https://dashboard.example.com' },
      })
      expect(response.status).toBe(201)
    } finally {
      await dashboard.stop()
    }
  })
})
