/**
 * An operator's dashboard on another origin (issue 22): with `TRUSTED_ORIGINS`, the staff and sign-in
 * routes answer its preflights with credentials, so that a page there signs in and works the staff API
 * with the session cookie, in a real Chromium (Node's fetch ignores CORS). A page on an origin not
 * listed gets nothing.
 */
import type { Server } from 'node:http'
import { randomBytes } from 'node:crypto'

import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { blankPageServer, launchChromium } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/harness.js'

let app: TestServer
let browser: Browser
let dashboard: { server: Server; port: number }
let stranger: { server: Server; port: number }
const email = `dashboard-${randomBytes(4).toString('hex')}@example.org`
const password = 'pale violet kettle orbit'

beforeAll(async () => {
  dashboard = await blankPageServer('Dashboard')
  stranger = await blankPageServer('Elsewhere')
  app = await startTestServer({
    staffAuth: { secret: randomBytes(32).toString('base64url'), trustedOrigins: [`http://localhost:${dashboard.port}`] },
  })
  await createStaffMember({ auth: app.auth }, { email, name: 'Dash Board', password, role: 'owner' })
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await app?.stop()
  dashboard?.server.close()
  stranger?.server.close()
})

/** In the page: sign in, read who is signed in, create an event; each step's status (or the browser's refusal). */
async function workFrom(origin: string) {
  const page = await browser.newPage()
  try {
    await page.goto(`${origin}/`)
    return await page.evaluate(
      async ({ api, email, password }) => {
        const call = async (path: string, init: RequestInit = {}) => {
          try {
            const response = await fetch(`${api}${path}`, { credentials: 'include', ...init })
            return { status: response.status, body: (await response.json()) as Record<string, unknown> }
          } catch (error) {
            return { refused: String(error) }
          }
        }
        const json = { 'content-type': 'application/json' }
        const signIn = await call('/api/auth/sign-in/email', { method: 'POST', headers: json, body: JSON.stringify({ email, password }) })
        const me = await call('/staff/me')
        const created = await call('/staff/events', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ slug: `dash-${Date.now()}`, name: 'From the dashboard', startAt: Date.now() }),
        })
        return { signIn, me, created }
      },
      { api: app.config.publicUrl, email, password },
    )
  } finally {
    await page.close()
  }
}

describe('a staff dashboard on another origin', () => {
  it('when it is in TRUSTED_ORIGINS, then a page there signs in, reads /staff/me and creates an event with the session cookie', async () => {
    const { signIn, me, created } = await workFrom(`http://localhost:${dashboard.port}`)
    expect(signIn).toMatchObject({ status: 200 })
    expect(me).toMatchObject({ status: 200, body: { email, role: 'owner' } })
    expect(created).toMatchObject({ status: 201, body: { name: 'From the dashboard' } })
  })

  it('when its origin is not listed, then the browser is refused at every step and nothing is created', async () => {
    const before = await app.orm.em
      .fork()
      .execute<{ n: number }[]>("select count(*)::int as n from event where name = 'From the dashboard'")
    const { signIn, me, created } = await workFrom(`http://127.0.0.1:${stranger.port}`)
    for (const step of [signIn, me, created]) expect(step).toHaveProperty('refused')
    const after = await app.orm.em.fork().execute<{ n: number }[]>("select count(*)::int as n from event where name = 'From the dashboard'")
    expect(after).toEqual(before)
  })
})
