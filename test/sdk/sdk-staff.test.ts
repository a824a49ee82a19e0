import { randomBytes } from 'node:crypto'

import { ApiError, createClient, isDefinedError, safe } from '@photobooth/sdk'
import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import { describe, expect, it } from 'vitest'

import { withTestServer, uniqueSlug } from '../support/harness.js'

const app = withTestServer()

describe('the SDK as an operator’s script', () => {
  it('when it signs in with staffCookies, then it runs staff routes with the session, and after signing out they answer 401', async () => {
    const email = `sdk-${randomBytes(4).toString('hex')}@example.org`
    await createStaffMember({ auth: app.auth }, { email, name: 'Script', password: 'correct horse battery', role: 'owner' })
    const client = createClient({ baseUrl: app.url, staffCookies: true })

    const signedIn = await client.staff.auth.signIn({ body: { email, password: 'correct horse battery' } })
    expect(signedIn.user?.email).toBe(email)
    expect((await client.staff.members.me()).email).toBe(email)

    const slug = uniqueSlug()
    const event = await client.staff.events.create({ body: { slug, name: 'Scripted', startAt: Date.parse('2027-01-01T18:00:00Z') } })
    const set = await client.staff.sets.create({ params: { eventId: event.id }, body: { slug: 'wall', name: 'Wall' } })
    expect(set.kioskUrl).toBe(`${app.config.publicUrl}/kiosk/${slug}/wall`)
    const { key } = await client.staff.boothKeys.create({ body: { name: 'Scripted booth' } })
    const booth = createClient({ baseUrl: app.url, boothKey: key })
    expect((await booth.booth.listEvents()).events.map((listed) => listed.slug)).toContain(slug)

    // A page's size is a number to the SDK's callers (the query's text is coerced by the service).
    expect((await client.staff.sessions.list({ eventId: event.id, limit: 2 })).sessions).toEqual([])
    // @ts-expect-error `limit` is a number: 'fifty' does not compile.
    const [fifty] = await safe(client.staff.sessions.list({ eventId: event.id, limit: 'fifty' }))
    expect(isDefinedError(fifty) && fifty.status).toBe(400)

    await client.staff.auth.signOut({})
    const [error] = await safe(client.staff.events.list())
    expect(isDefinedError(error) && [error.status, error.code, error.message]).toEqual([401, 'UNAUTHORIZED', 'Staff sign-in required'])
  })

  it('when the password is wrong, then a 401 with the service’s words, an HTTP error that sign-in does not declare', async () => {
    const client = createClient({ baseUrl: app.url, staffCookies: true })
    const [error] = await safe(client.staff.auth.signIn({ body: { email: 'nobody@example.org', password: 'wrong password!' } }))
    // The sign-in declares Better Auth's refusals: a wrong password is a defined 401.
    expect(isDefinedError(error) && error.code === 'UNAUTHORIZED' && [error.status, error.message]).toEqual([
      401,
      'Invalid email or password',
    ])
    expect(error instanceof ApiError).toBe(true)
  })
})
