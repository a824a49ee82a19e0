import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { launchChromium } from '../support/browser.js'
import { startFakePostmark, type FakePostmark } from '../support/fake-providers.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SCREENSHOTS = resolve(ROOT, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots')

let postmark: FakePostmark
let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true })
  postmark = await startFakePostmark()
  app = await startTestServer({
    delivery: {
      dispatch: true,
      email: {
        kind: 'postmark',
        serverToken: 'token',
        from: 'Photos <photos@example.com>',
        messageStream: 'links',
        apiUrl: postmark.url,
        timeoutMs: 5_000,
      },
      dispatcher: { intervalMs: 50, batchSize: 10, retryForMs: 3_600_000, baseDelayMs: 20, maxDelayMs: 100, leaseMs: 5_000 },
    },
    copies: { work: true, worker: { concurrency: 2, intervalMs: 50, leaseMs: 60_000, maxAttempts: 3, baseDelayMs: 50 }, linkWaitMs: 0 },
  })
  staff = await signedInStaff(app)
})
afterAll(async () => {
  await app?.stop()
  await postmark?.close()
})

describe('the gallery email of a branded event', () => {
  it("when the event has a logo, a colour, a line and the business's name and link, then the email a guest gets shows them, the button readable on the colour", async () => {
    const email = `guest.${uniqueSlug()}@example.org`
    const created = await staffFetch(app, staff, '/staff/events', {
      method: 'POST',
      body: {
        slug: uniqueSlug(),
        name: 'Emma & Liam',
        startAt: Date.now(),
        branding: {
          businessName: 'Flashbulb Booths',
          businessUrl: 'https://flashbulb.example.com/',
          accentColor: '#f5c518',
          tagline: 'Thanks for dancing with us!',
          logo: `data:image/png;base64,${(await makeLogo()).toString('base64')}`,
        },
      },
    })
    expect(created.status).toBe(201)
    const event = await created.json()
    const set = await (
      await staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'booth', name: 'Booth' } })
    ).json()
    const { sessionId } = await makeLiveGallery(app, { setId: set.id, guests: [{ name: 'Ada', email }] })

    await until(
      async () => postmark.accepted.some((request) => request.body.includes(email)),
      (arrived) => arrived,
    )
    const sent = JSON.parse(postmark.accepted.find((request) => request.body.includes(email))!.body) as
      Record<string, string> | Record<string, string>[]
    const mail = (Array.isArray(sent) ? sent : [sent]).find((one) => one.To === email)!
    expect(mail.TextBody).toContain('Flashbulb Booths · https://flashbulb.example.com/')
    expect(mail.HtmlBody).toContain(`src="${event.branding.logo.url}"`)
    // Yellow: the button's words are black, not white.
    expect(mail.HtmlBody).toContain('background:#f5c518;color:#000000')

    // As a mail client shows it: the logo loads from the service, the line and the footer are there.
    const browser = await launchChromium()
    try {
      const page = await browser.newPage({ viewport: { width: 600, height: 700 } })
      const logoLoaded = page.waitForResponse((response) => response.url() === event.branding.logo.url && response.status() === 200)
      await page.setContent(mail.HtmlBody!)
      await logoLoaded
      // In the page: the image has loaded its 400 px (a DOM element, typed here as what the page reads of it).
      await expect
        .poll(() => page.locator('img').evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth))
        .toBe(400)
      expect(await page.getByRole('img', { name: 'Flashbulb Booths' }).isVisible()).toBe(true)
      expect(await page.getByText('Thanks for dancing with us!').isVisible()).toBe(true)
      expect(await page.getByRole('link', { name: 'Flashbulb Booths' }).getAttribute('href')).toBe('https://flashbulb.example.com/')
      expect(await page.getByRole('link', { name: 'See your photos' }).getAttribute('href')).toContain(sessionId)
      await page.screenshot({ path: resolve(SCREENSHOTS, 'email-branded.png') })
    } finally {
      await browser.close()
    }
  })
})

/** A logo as a designer exports one: 400×120, a coloured mark with words beside it. */
async function makeLogo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><rect x="0" y="10" width="100" height="100" rx="20" fill="#f5c518"/><text x="120" y="80" font-family="sans-serif" font-size="48" font-weight="700" fill="#222">Flashbulb</text></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}
