import { copyFile, mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'

import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import axe from 'axe-core'
import sharp from 'sharp'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { closeGuests, launchChromium, openGuest, type Guest, type GuestOptions } from '../support/browser.js'
import { makeCameraJpeg } from '../support/camera.js'
import { scratchDatabases } from '../support/databases.js'
import { createTestBoothKey, startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { signedInStaff, staffFetch } from '../support/staff.js'
import { until } from '../support/until.js'

/**
 * The guest's pages at the moments that matter, on a phone as guests hold one (390×844 CSS px at
 * 3×), with photos as a booth's camera makes them: a QR scan right after completion, while the
 * copies are still being made (placeholders of each photo's shape, the copies swapped in as they
 * come, never a full-size photo or an original fetched); a page a business sends (its logo, colour
 * and footer); nothing that moves; screenshots at 320, 390 and 1280 px for review.
 */

const ROOT = resolve(import.meta.dirname, '../..')
const SCREENSHOTS = resolve(ROOT, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots')
const phone = (width: number): BrowserContextOptions => ({
  viewport: { width, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
})
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 }
const COPIES = loadSettings({}).copies

type Copy = { url: string; width: number; height: number }
type Photo = { id: string; url: string; width: number; height: number; copies?: Copy[] }
type LiveGallery = { id: string; label: string; photos: Photo[]; preview?: Copy }

// Databases of this file's own: a server whose copies worker is off must not have its photos taken
// by another's, and the worker is started on a session's database when the test says so.
const databases = scratchDatabases('browser_guest')
let browser: Browser
const guests: Guest[] = []
const servers: TestServer[] = []

beforeAll(async () => {
  browser = await launchChromium()
  await mkdir(SCREENSHOTS, { recursive: true })
})

// Whatever a test did, no page it opened showed an error, broke its policy or asked another origin.
afterEach(async () => {
  await closeGuests(guests.splice(0))
  await Promise.all(servers.splice(0).map((server) => server.stop()))
})

afterAll(async () => {
  await browser?.close()
  await databases.dropAll()
})

describe('a gallery opened right after the booth completes it, on a phone at 3×', () => {
  it('when its copies are not made yet, then each photo is a placeholder of its shape, the copies take their places as they are made, without a reload, a shift or any full-size photo', async () => {
    const databaseUrl = await databases.create()
    // The QR scan at the booth: the copies worker has not run yet.
    const app = await server({ databaseUrl, copies: { ...COPIES, work: false } })
    const { sets } = await seedEvent(app, 'Harbour Lights Gala')
    const camera = await cameraPhotos([1, 6, 1, 6])
    const { session, uploadKeys } = await completeSession(app, sets[0]!.id, ['Ada Lovelace', 'Grace Hopper'], camera)
    const gallery = (await client(app).gallery.getGallery({ sessionId: session })) as LiveGallery
    expect(gallery.photos.map((photo) => photo.copies)).toEqual([undefined, undefined, undefined, undefined])
    expect(gallery.photos.map((photo) => photo.width > photo.height)).toEqual([true, false, true, false])

    const visitor = await guest(app, { context: phone(390) })
    const { page } = visitor
    const requested = recordRequests(visitor)
    const navigations: string[] = []
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()))
    await watchLayoutShifts(visitor)

    const response = await page.goto(`/g/${session}`)
    expect(response?.status()).toBe(200)
    // The gallery at once, never a "few seconds more" page, and never cached while it fills in.
    expect(response?.headers()['cache-control']).toBe('no-cache')
    expect(await page.getAttribute('body', 'data-page')).toBe('gallery')
    expect(await page.textContent('h1')).toBe('Ada & Grace')
    const placeholders = await tileBoxes(page)
    expect(placeholders.map((tile) => tile.image)).toEqual([false, false, false, false])
    for (const [i, tile] of placeholders.entries()) {
      const photo = gallery.photos[i]!
      expect(tile.ratio, `photo ${i + 1}'s placeholder`).toBeCloseTo(photo.width / photo.height, 2)
    }
    expect(await screenReaderNames(page)).toEqual(
      [1, 2, 3, 4].map((n) => `Photo ${n} of 4, Ada & Grace at Harbour Lights Gala (on its way)`),
    )
    await page.screenshot({ path: resolve(SCREENSHOTS, 'gallery-arriving-390.png'), animations: 'disabled', caret: 'hide' })

    // The copies worker runs (another instance on the same database and bucket): the page asks for
    // the gallery again, gently, and swaps each copy in where its placeholder was.
    await server({ databaseUrl })
    const shown = await until(
      () => tileBoxes(page),
      (tiles) => tiles.every((tile) => tile.image && tile.decoded),
      90_000,
    )
    const made = (await client(app).gallery.getGallery({ sessionId: session })) as LiveGallery
    for (const [i, tile] of shown.entries()) {
      expect(
        made.photos[i]!.copies!.map((copy) => copy.url),
        `photo ${i + 1}`,
      ).toContain(tile.src)
      expect(tile.box, `photo ${i + 1} moved`).toEqual(placeholders[i]!.box)
    }
    expect(navigations).toEqual([`${app.url}/g/${session}`])
    expect(await layoutShift(page)).toBe(0)
    expect(await screenReaderNames(page)).toEqual([1, 2, 3, 4].map((n) => `Photo ${n} of 4, Ada & Grace at Harbour Lights Gala`))

    // The viewer shows the large copy; nothing the page asked for was a full-size photo or an upload.
    await page.tap('.photos li:nth-child(2) a')
    await page.locator('.viewer-stage:not(.loading) .viewer-image').waitFor()
    expect(await page.locator('.viewer-image').evaluate((img: { currentSrc: string }) => img.currentSrc)).toBe(
      made.photos[1]!.copies!.at(-1)!.url,
    )
    expect(fullSizeOrOriginal(requested, made.photos, uploadKeys)).toEqual([])
    expect(visitor.sent).toEqual([{ kind: 'view', sessionId: session }])
  }, 180_000)
})

describe('the end of an event: sessions completed at once, their copies still being made', () => {
  it('when the links land and the event page is open, then no page and no link preview ever names a full-size photo or an original, and the cards fill in', async () => {
    const databaseUrl = await databases.create()
    const app = await server({ databaseUrl, copies: { ...COPIES, work: false } })
    const { event, sets } = await seedEvent(app, 'Harbour Lights Gala')
    const burst = await Promise.all(
      [['Ada Lovelace'], ['Grace Hopper', 'Katherine Johnson'], ['Alan Turing']].map(async (names, i) =>
        completeSession(app, sets[0]!.id, names, await cameraPhotos(i === 1 ? [6, 1] : [1, 6])),
      ),
    )
    const uploadKeys = burst.flatMap((one) => one.uploadKeys)

    // What a messenger reads when a link is pasted: the preview card, never a photo's full-size copy.
    for (const { session } of burst) {
      const tags = metaTags(await (await fetch(`${app.url}/g/${session}`)).text())
      expect(tags['og:image']).toMatch(new RegExp(`^${app.url}/g/assets/card\\.[0-9a-f]{12}\\.jpg$`))
      expect(tags['og:image:width']).toBe('1200')
      const card = await fetch(tags['og:image']!)
      expect(card.headers.get('content-type')).toBe('image/jpeg')
      const bytes = Buffer.from(await card.arrayBuffer())
      expect(bytes.length).toBeLessThanOrEqual(300_000)
      expect(await sharp(bytes).metadata()).toMatchObject({ width: 1200, height: 630, format: 'jpeg' })
    }

    const visitor = await guest(app, { context: phone(390) })
    const requested = recordRequests(visitor)
    await visitor.page.goto(`/g/events/${event.slug}`)
    const cards = visitor.page.locator('.cards > li')
    expect(await cards.count()).toBe(3)
    expect(await visitor.page.locator('.cards img').count()).toBe(0)

    await server({ databaseUrl })
    await until(
      () => visitor.page.locator('.cards img').count(),
      (count) => count === 3,
      90_000,
    )
    const galleries = await Promise.all(
      burst.map(({ session }) =>
        until(
          () => client(app).gallery.getGallery({ sessionId: session }) as Promise<LiveGallery>,
          (read) => read.preview !== undefined,
          90_000,
        ),
      ),
    )
    // Once made, each gallery's own preview, 1200×630.
    for (const gallery of galleries) {
      expect(metaTags(await (await fetch(`${app.url}/g/${gallery.id}`)).text())['og:image']).toBe(gallery.preview!.url)
    }
    expect(
      fullSizeOrOriginal(
        requested,
        galleries.flatMap((gallery) => gallery.photos),
        uploadKeys,
      ),
    ).toEqual([])
  }, 240_000)
})

describe('a branded event’s pages, as a business sends them', () => {
  const BRANDING = {
    businessName: 'Flashbulb Booths',
    businessUrl: 'https://flashbulb.example.com/',
    // A yellow that white text cannot be read on, nor can links on a white page be: the pages pick readable ones.
    accentColor: '#f5c518',
    tagline: 'Thanks for celebrating with us!',
  }
  let app: TestServer
  let gallery: LiveGallery
  let slug: string
  /** A gallery whose label takes two lines on a phone. */
  let longLabel: string
  /** A session the booth is still shooting. */
  let waiting: string

  beforeAll(async () => {
    app = await startTestServer({ databaseUrl: await databases.create() })
    const { event, sets } = await seedEvent(app, 'Emma & Liam’s Wedding', ['Photo booth', 'Garden terrace'])
    slug = event.slug
    const staff = await signedInStaff(app)
    const logo = await sharp({ create: { width: 1200, height: 300, channels: 4, background: { r: 20, g: 20, b: 28, alpha: 1 } } })
      .composite([
        {
          input: Buffer.from(
            '<svg width="1200" height="300"><circle cx="150" cy="150" r="110" fill="#f5c518"/><rect x="320" y="90" width="800" height="120" rx="30" fill="#ffffff"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer()
    const branded = await staffFetch(app, staff, `/staff/events/${event.id}`, {
      method: 'PATCH',
      body: { branding: { ...BRANDING, logo: `data:image/png;base64,${logo.toString('base64')}` } },
    })
    expect(branded.status).toBe(200)
    // Ten camera photos, two held upright (as the booth's camera makes them); the garden's galleries smaller.
    const camera = await cameraPhotos([1, 1, 6, 1, 1, 1, 1, 6, 1, 1])
    const main = await completeSession(app, sets[0]!.id, ['Ada Lovelace', 'Grace Hopper'], camera)
    const others = [
      await completeSession(app, sets[0]!.id, ['Katherine Johnson'], [camera[2]!, camera[3]!]),
      await completeSession(app, sets[0]!.id, ['Alan Turing', 'Joan Clarke', 'Tommy Flowers'], [camera[4]!]),
      await completeSession(app, sets[1]!.id, ['Hedy Lamarr'], [camera[7]!, camera[5]!, camera[6]!]),
      await completeSession(app, sets[1]!.id, ['Mary Jackson', 'Dorothy Vaughan'], [camera[8]!]),
      await completeSession(app, sets[1]!.id, ['Emmy Noether'], [camera[9]!, camera[0]!]),
      await completeSession(app, sets[1]!.id, ['Katherine Johnson', 'Dorothy Vaughan', 'Mary Jackson'], [camera[1]!, camera[2]!]),
    ]
    longLabel = others.at(-1)!.session
    waiting = (
      await client(app).kiosk.registerGuests({
        params: { setId: sets[0]!.id },
        body: { guests: [{ name: 'Rosalind Franklin', email: 'r@example.org' }] },
      })
    ).id
    const made = await Promise.all(
      [main, ...others].map(({ session }) =>
        until(
          () => client(app).gallery.getGallery({ sessionId: session }) as Promise<LiveGallery>,
          (read) => read.photos.every((photo) => photo.copies) && read.preview !== undefined,
          120_000,
        ),
      ),
    )
    gallery = made[0]!
  }, 240_000)

  afterAll(() => app?.stop())

  it('when a guest opens the gallery and the event page, then the business’s logo, name, link, line and colours are on them, every text readable', async () => {
    const { page } = await guest(app, { context: phone(390) })
    for (const path of [`/g/${gallery.id}`, `/g/events/${slug}`]) {
      await page.goto(path)
      const logo = page.locator('.masthead img')
      expect(await logo.getAttribute('alt'), path).toBe('Flashbulb Booths')
      expect(
        await logo.evaluate((img: { naturalWidth: number; currentSrc: string }) => [img.naturalWidth > 0, new URL(img.currentSrc).origin]),
      ).toEqual([true, app.url])
      expect(await page.locator('.masthead a').getAttribute('href')).toBe(BRANDING.businessUrl)
      // The business's line once: under the event's name on its page, in the footer of a gallery.
      const footer = await page.locator('.site-footer p').allInnerTexts()
      const heading = await page.locator('.intro .tagline').allInnerTexts()
      expect([...heading, ...footer], path).toEqual(
        path.includes('/events/')
          ? ['Thanks for celebrating with us!', 'Photos by Flashbulb Booths']
          : ['Photos by Flashbulb Booths', 'Thanks for celebrating with us!'],
      )
      expect(await page.locator('.site-footer a').getAttribute('href')).toBe(BRANDING.businessUrl)
      // Links in the accent colour, darkened just enough to read on the page.
      expect(await contrastOf(page, '.site-footer a'), path).toBeGreaterThanOrEqual(4.5)
    }
    await page.goto(`/g/${gallery.id}`)
    // The main button in the accent colour, its icon in the colour that reads on it.
    const zip = await page.evaluate<{ background: string; color: string }>(`(() => {
      const style = getComputedStyle(document.querySelector('[data-zip]'))
      return { background: style.backgroundColor, color: style.color }
    })()`)
    expect(zip).toEqual({ background: 'rgb(245, 197, 24)', color: 'rgb(0, 0, 0)' })
  })

  it('when axe-core looks at the gallery, its viewer and the event page, then it finds nothing to fault and nothing it could not decide', async () => {
    const { page } = await guest(app, { context: phone(390), webShare: true })
    const rules = { 'label-content-name-mismatch': { enabled: true }, 'target-size': { enabled: true } }
    for (const [what, path, open] of [
      ['gallery', `/g/${gallery.id}`, false],
      ['viewer', `/g/${gallery.id}`, true],
      ['event page', `/g/events/${slug}`, false],
    ] as const) {
      await page.goto(path)
      await imagesInView(page)
      if (open) {
        await page.tap('.photos li:nth-child(2) a')
        await page.locator('.viewer-stage:not(.loading)').waitFor()
      }
      await page.evaluate(axe.source)
      const audit = await page.evaluate<{
        violations: string[]
        incomplete: string[]
      }>(`axe.run(document, ${JSON.stringify({ rules })}).then((results) => ({
        violations: results.violations.map((rule) => rule.id + ': ' + rule.nodes.map((node) => node.target.join(' ')).join(', ')),
        incomplete: results.incomplete.map((rule) => rule.id + ': ' + rule.nodes.map((node) => node.target.join(' ')).join(', ')),
      }))`)
      expect(audit, what).toEqual({ violations: [], incomplete: [] })
    }
  })

  it('when galleries are loaded ten times over slow 4G on a phone that shares, with their share buttons, then nothing on them ever moves (CLS 0)', async () => {
    const shifts: number[] = []
    for (let load = 0; load < 10; load++) {
      // Each load cold: a new browser context, its own cache and connections; every other one a
      // gallery whose label wraps beside the buttons.
      const visitor = await guest(app, { context: phone(390), webShare: true })
      await watchLayoutShifts(visitor)
      const cdp = await visitor.context.newCDPSession(visitor.page)
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 150,
        downloadThroughput: 1_600_000 / 8,
        uploadThroughput: 750_000 / 8,
        connectionType: 'cellular4g',
      })
      // The script late, as on a network where it comes after the stylesheet: nothing may wait for it to take its place.
      await visitor.context.route(/\/g\/assets\/gallery\.[0-9a-f]+\.js$/, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 600))
        await route.continue()
      })
      await visitor.page.goto(`/g/${load % 2 === 0 ? gallery.id : longLabel}`, { waitUntil: 'networkidle' })
      await imagesInView(visitor.page)
      expect(await visitor.page.locator('[data-share="link"]').isVisible()).toBe(true)
      shifts.push(await layoutShift(visitor.page))
      await closeGuests(guests.splice(guests.indexOf(visitor), 1))
    }
    expect(shifts).toEqual(Array(10).fill(0))
  }, 120_000)

  it('when shown at 320, 390 and 1280 px, then each page is captured for review, the event page with its branding', async () => {
    const pages = {
      gallery: `/g/${gallery.id}`,
      event: `/g/events/${slug}`,
      waiting: `/g/${waiting}`,
      missing: '/g/AAAAAAAAAAAAAAAAAAAAAA',
    }
    for (const [size, options] of [
      ['320', phone(320)],
      ['390', phone(390)],
      ['1280', DESKTOP],
    ] as const) {
      const { page } = await guest(app, { context: options, webShare: size !== '1280' })
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(path)
        expect(await page.getAttribute('body', 'data-page')).toBe(name)
        await imagesInView(page)
        await page.screenshot({ path: resolve(SCREENSHOTS, `${name}-${size}.png`), animations: 'disabled', caret: 'hide' })
      }
      await page.goto(pages.gallery)
      await page.click('.photos li:nth-child(3) a')
      await page.locator('.viewer-stage:not(.loading) .viewer-image').waitFor()
      await page.screenshot({ path: resolve(SCREENSHOTS, `viewer-${size}.png`), animations: 'disabled', caret: 'hide' })
    }
    if (process.env.UPDATE_README_SCREENSHOT === '1')
      await copyFile(resolve(SCREENSHOTS, 'gallery-390.png'), resolve(ROOT, 'docs/gallery-phone.png'))
  }, 120_000)
})

// ————— helpers —————

async function server(overrides: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const started = await startTestServer(overrides)
  servers.push(started)
  return started
}

const client = (app: TestServer): PhotoBoothClient => createClient({ baseUrl: app.url })

async function guest(app: TestServer, options: GuestOptions): Promise<Guest> {
  const opened = await openGuest(browser, app.url, options)
  guests.push(opened)
  return opened
}

async function seedEvent(app: TestServer, name: string, sets = ['Photo booth']) {
  return createEvent(app.orm.em.fork(), {
    slug: uniqueSlug('guest'),
    name,
    startAt: new Date('2026-06-20T18:00:00Z'),
    isPrivate: false,
    sets: sets.map((setName, i) => ({ slug: `set-${i + 1}`, name: setName })),
  })
}

/** Camera photos, with these EXIF orientations (6: held upright, shown portrait). */
function cameraPhotos(orientations: number[]): Promise<Buffer[]> {
  return Promise.all(orientations.map((orientation, i) => makeCameraJpeg({ seed: 7 * i + orientation, orientation })))
}

/** Registered by the kiosk, uploaded and completed by the booth: as production makes a gallery. */
async function completeSession(app: TestServer, setId: string, names: string[], images: Buffer[]) {
  const kiosk = client(app)
  const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
  const { id } = await kiosk.kiosk.registerGuests({
    params: { setId },
    body: { guests: names.map((name, i) => ({ name, email: `guest${i}@example.org` })) },
  })
  const { uploads } = await booth.booth.createUploads({ params: { sessionId: id }, body: { count: images.length } })
  for (const [i, upload] of uploads.entries()) {
    const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[i] })
    if (!response.ok) throw new Error(`upload failed: ${response.status} ${await response.text()}`)
  }
  await booth.booth.complete({ params: { sessionId: id }, body: { photos: uploads.map((upload) => upload.key) } })
  return { session: id, uploadKeys: uploads.map((upload) => upload.key) }
}

/** Every URL the guest's browser asked for, in order. */
function recordRequests({ context }: Guest): string[] {
  const urls: string[] = []
  context.on('request', (request) => void urls.push(request.url()))
  return urls
}

/** The requests for a photo's full-size copy or for an upload as the booth sent it. */
function fullSizeOrOriginal(requested: string[], photos: Photo[], uploadKeys: string[]): string[] {
  const fullSize = new Set(photos.map((photo) => photo.url))
  return requested.filter((url) => fullSize.has(url) || uploadKeys.some((key) => url.includes(key)) || /\/download$|\/zip$/.test(url))
}

type TileBox = {
  box: { x: number; y: number; width: number; height: number }
  ratio: number
  image: boolean
  decoded: boolean
  src: string | null
}

/** The grid's tiles as laid out: their boxes, and the image in each (if any) once it has loaded. */
async function tileBoxes(page: Page): Promise<TileBox[]> {
  return page.evaluate<TileBox[]>(`[...document.querySelectorAll('.photos > li > a')].map((link) => {
    const { x, y, width, height } = link.getBoundingClientRect()
    const img = link.querySelector('img')
    return {
      box: { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10, width: Math.round(width * 10) / 10, height: Math.round(height * 10) / 10 },
      ratio: width / height,
      image: Boolean(img),
      decoded: Boolean(img && img.complete && img.naturalWidth > 0 && !img.classList.contains('arriving')),
      src: img ? img.currentSrc : null,
    }
  })`)
}

/** What a screen reader announces for each tile. */
async function screenReaderNames(page: Page): Promise<string[]> {
  const names: string[] = []
  for (const link of await page.locator('.photos > li > a').all()) {
    const snapshot = await link.ariaSnapshot()
    names.push(snapshot.match(/img "([^"]+)"/)?.[1] ?? snapshot)
  }
  return names
}

/** Layout shifts from the first paint on (without a recent input: what CLS counts). */
async function watchLayoutShifts({ context }: Guest): Promise<void> {
  await context.addInitScript({
    content: `window.__shifts = 0
      new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shifts += entry.value })
        .observe({ type: 'layout-shift', buffered: true })`,
  })
}

const layoutShift = (page: Page) => page.evaluate<number>('window.__shifts')

/** `<meta property|name="…" content="…">` as a map. */
function metaTags(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map(([, name, content]) => [
      name!,
      content!.replaceAll('&amp;', '&'),
    ]),
  )
}

/** Waits until the images in view have loaded and been decoded: a screenshot shows them. */
async function imagesInView(page: Page) {
  await page.evaluate(`Promise.all([...document.images]
    .filter((img) => { const box = img.getBoundingClientRect(); return box.width > 0 && box.bottom > 0 && box.top < innerHeight })
    .map((img) => img.decode()))`)
}

/** The contrast of an element's text on the page's background (WCAG 2.2). */
async function contrastOf(page: Page, selector: string): Promise<number> {
  return page.evaluate<number>(`(() => {
    const luminance = (css) => {
      const [r, g, b] = css.match(/\\d+/g).slice(0, 3).map((channel) => {
        const c = Number(channel) / 255
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * r + 0.7152 * g + 0.0722 * b
    }
    const [light, dark] = [getComputedStyle(document.querySelector(${JSON.stringify(selector)})).color, getComputedStyle(document.body).backgroundColor]
      .map(luminance)
      .sort((a, b) => b - a)
    return (light + 0.05) / (dark + 0.05)
  })()`)
}
