/**
 * A browser kiosk, and a business's website, on another origin (issue 23): with `CORS_ORIGINS`, a page
 * there reads the kiosk context, registers guests with an Idempotency-Key (whose retry is replayed and
 * says so), and posts the contact form, in a real Chromium; a page on an origin not listed cannot.
 */
import type { Server } from 'node:http'

import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { blankPageServer, launchChromium } from '../support/browser.js'
import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'

async function pageServer(): Promise<{ server: Server; origin: string }> {
  const { server, port } = await blankPageServer('Kiosk')
  return { server, origin: `http://127.0.0.1:${port}` }
}

let app: TestServer
let browser: Browser
let kiosk: { server: Server; origin: string }
let stranger: { server: Server; origin: string }
let context: { eventSlug: string; setSlug: string; setId: string }

beforeAll(async () => {
  kiosk = await pageServer()
  stranger = await pageServer()
  app = await startTestServer({ corsOrigins: [kiosk.origin] })
  const { event, sets } = await seedEvent(app.orm)
  context = { eventSlug: event.slug, setSlug: sets[0]!.slug, setId: sets[0]!.id }
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await app?.stop()
  kiosk?.server.close()
  stranger?.server.close()
})

/** In a page of `origin`: the kiosk's calls and the contact form, each step's status (or the browser's refusal). */
async function kioskFrom(origin: string) {
  const page = await browser.newPage()
  try {
    await page.goto(`${origin}/`)
    return await page.evaluate(
      async ({ api, eventSlug, setSlug, setId }) => {
        const call = async (path: string, init: RequestInit = {}) => {
          try {
            const response = await fetch(`${api}${path}`, init)
            return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: await response.text() }
          } catch (error) {
            return { refused: String(error) }
          }
        }
        const key = crypto.randomUUID()
        const register = () =>
          call(`/sets/${setId}/sessions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-photobooth-sdk': 'browser-kiosk-test' },
            body: JSON.stringify({ guests: [{ name: 'Ada Lovelace', email: 'ada.browser@example.org' }] }),
          })
        const read = await call(`/events/${eventSlug}/sets/${setSlug}`)
        const first = await register()
        const retry = await register()
        const contact = await call('/contact', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ fields: { Name: 'Grace', Message: 'We would like a booth at our wedding' } }),
        })
        return { read, first, retry, contact }
      },
      { api: app.config.publicUrl, ...context },
    )
  } finally {
    await page.close()
  }
}

describe('a browser kiosk on another origin', () => {
  it('when its origin is in CORS_ORIGINS, then it reads its context, registers with a key whose retry is replayed (and says so), and posts the contact form', async () => {
    const { read, first, retry, contact } = await kioskFrom(kiosk.origin)
    expect(read).toMatchObject({ status: 200 })
    expect(first).toMatchObject({ status: 201, replayed: null })
    expect(retry).toEqual({ ...first, replayed: 'true' })
    // Answered, whatever the form's own verdict: the browser let the page read it.
    expect((contact as { status: number }).status).toBeLessThan(500)
    expect(contact).not.toHaveProperty('refused')
  })

  it('when its origin is not listed, then the browser is refused at every step and no session is made', async () => {
    const before = await app.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from session where set_id = ?', [context.setId])
    const steps = await kioskFrom(stranger.origin)
    for (const step of Object.values(steps)) expect(step).toHaveProperty('refused')
    expect(await app.orm.em.fork().execute('select count(*)::int as n from session where set_id = ?', [context.setId])).toEqual(before)
  })
})
