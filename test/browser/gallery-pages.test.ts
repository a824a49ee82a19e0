import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { resolve } from 'node:path'

import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { closeGuests, DESKTOP, launchChromium, openGuest, PHONE, photosShown, type Guest, type GuestOptions } from '../support/browser.js'
import { copiesSettled } from '../support/gallery-fixture.js'
import { makeCameraJpeg } from '../support/camera.js'
import { scratchDatabases } from '../support/databases.js'
import { createTestBoothKey, startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { until } from '../support/until.js'
import { unzip } from '../support/unzip.js'

const ROOT = resolve(import.meta.dirname, '../..')
const SCREENSHOTS = resolve(ROOT, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots')

// One database of this file's own: another file's server (vitest runs files at once where it has
// the cores) would otherwise claim these photos for its copies worker, and find no upload in its
// own bucket (the photo is then marked failed, without copies).
const databases = scratchDatabases('browser_pages')
let app: TestServer
let browser: Browser
let kiosk: PhotoBoothClient
let booth: PhotoBoothClient
const guests: Guest[] = []

beforeAll(async () => {
  ;[app, browser] = await Promise.all([databases.create().then((databaseUrl) => startTestServer({ databaseUrl })), launchChromium()])
  kiosk = createClient({ baseUrl: app.url })
  booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
  await mkdir(SCREENSHOTS, { recursive: true })
})

// Whatever a test did, no page it opened showed an error, broke its policy or asked another origin.
afterEach(() => closeGuests(guests.splice(0)))

afterAll(async () => {
  await browser?.close()
  await app?.stop()
  await databases.dropAll()
})

describe('a guest’s gallery page, in Chromium', () => {
  it('when opened, then it shows every photo in gallery order at its own size, from its display copy, described, in English', async () => {
    const images = [makeJpeg(48, 32, 10), makeJpeg(30, 45, 80), makeJpeg(40, 40, 160)]
    const gallery = await liveGallery({ event: 'Harbour Lights Gala', names: ['Ada Lovelace', 'Grace Hopper'], images })
    const { photos } = await copiesMade(gallery.id)
    const { page } = await guest()

    const response = await page.goto(`/g/${gallery.id}`)
    expect(response?.status()).toBe(200)
    expect(await page.getAttribute('html', 'lang')).toBe('en')
    expect(await page.title()).toBe('Ada & Grace · Harbour Lights Gala')
    expect(await page.textContent('h1')).toBe('Ada & Grace')
    expect(await page.textContent('.eyebrow')).toBe('Harbour Lights Gala')
    expect(await page.textContent('.meta')).toBe('3 photos')

    // Each from its display copy (a photo this small has one, at its own size), never enlarged.
    const shown = (await photosShown(page)).map(({ cssWidth: _cssWidth, ...photo }) => photo)
    expect(shown).toEqual([
      {
        width: '48',
        height: '32',
        pixels: [48, 32],
        src: photos[0]!.copies![0]!.url,
        alt: 'Photo 1 of 3, Ada & Grace at Harbour Lights Gala',
      },
      {
        width: '30',
        height: '45',
        pixels: [30, 45],
        src: photos[1]!.copies![0]!.url,
        alt: 'Photo 2 of 3, Ada & Grace at Harbour Lights Gala',
      },
      {
        width: '40',
        height: '40',
        pixels: [40, 40],
        src: photos[2]!.copies![0]!.url,
        alt: 'Photo 3 of 3, Ada & Grace at Harbour Lights Gala',
      },
    ])
    expect(photos.map((photo) => photo.copies!.map((copy) => [copy.type, copy.width]))).toEqual([
      [['image/webp', 48]],
      [['image/webp', 30]],
      [['image/webp', 40]],
    ])
    // Without Web Share (a desktop browser), only the buttons that work are offered.
    expect(await visibleShareButtons(page)).toEqual(['copy', 'facebook'])
  })

  it('when loaded and reloaded, then each load counts exactly one view', async () => {
    const gallery = await liveGallery()
    const visitor = await guest()
    const view = { body: { kind: 'view', sessionId: gallery.id }, status: 204 }

    await visitor.page.goto(`/g/${gallery.id}`)
    expect(await visitor.beacons.count(1)).toEqual([view])
    expect(await trackingRows(gallery.id)).toEqual([{ kind: 'view', channel: null }])

    await visitor.page.reload()
    expect(await visitor.beacons.count(2)).toEqual([view, view])
    expect(await trackingRows(gallery.id)).toEqual([
      { kind: 'view', channel: null },
      { kind: 'view', channel: null },
    ])
    expect(visitor.sent).toHaveLength(2)
  })

  it('when a share button is pressed, then the share is counted with its channel and the guest gets what they asked for', async () => {
    const images = [makeJpeg(40, 30, 7), makeJpeg(30, 40, 9)]
    const gallery = await liveGallery({ images })
    const visitor = await guest({ webShare: true })
    const { page } = visitor
    await visitor.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
    const pageUrl = `${app.url}/g/${gallery.id}`
    await page.goto(`/g/${gallery.id}`)
    await visitor.beacons.count(1)
    expect(await visibleShareButtons(page)).toEqual(['native', 'copy', 'facebook', 'instagram', 'tiktok'])
    const title = await page.title()

    // Copy link: the link is on the clipboard, and the page says so.
    await page.click('[data-share="copy"]')
    await page.locator('.status', { hasText: 'Link copied' }).waitFor()
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(pageUrl)
    expect((await visitor.beacons.count(2))[1]).toEqual({ body: { kind: 'share', sessionId: gallery.id, channel: 'copy' }, status: 204 })

    // Facebook: its sharer opens in a new tab with this page's link (blocked here: nothing leaves the machine).
    const sharer = visitor.context.waitForEvent('request', (request) => new URL(request.url()).hostname === 'www.facebook.com')
    await page.click('[data-share="facebook"]')
    const sharerUrl = (await sharer).url()
    const opened = new URL(sharerUrl)
    expect(`${opened.origin}${opened.pathname}`).toBe('https://www.facebook.com/sharer/sharer.php')
    expect(opened.searchParams.get('u')).toBe(pageUrl)
    expect((await visitor.beacons.count(3))[2]).toEqual({
      body: { kind: 'share', sessionId: gallery.id, channel: 'facebook' },
      status: 204,
    })
    expect(visitor.foreign.splice(0)).toEqual([sharerUrl])

    // The phone's share sheet: the link for "Share…", the first photo itself for the photo apps (its
    // large display copy, as a JPEG every app takes).
    const photo = { name: `${title}.jpg`, type: 'image/jpeg', size: expect.any(Number) }
    const sheets = [
      ['native', { title, url: pageUrl, files: [] }],
      ['instagram', { title, files: [photo] }],
      ['tiktok', { title, files: [photo] }],
    ] as const
    for (const [i, [channel, shared]] of sheets.entries()) {
      await page.click(`[data-share="${channel}"]`)
      expect((await visitor.beacons.count(4 + i))[3 + i]).toEqual({ body: { kind: 'share', sessionId: gallery.id, channel }, status: 204 })
      expect((await visitor.shared.count(i + 1))[i]).toEqual(shared)
    }

    expect(await trackingRows(gallery.id)).toEqual([
      { kind: 'view', channel: null },
      ...['copy', 'facebook', 'native', 'instagram', 'tiktok'].map((channel) => ({ kind: 'share', channel })),
    ])
  })

  it('when a photo or the whole gallery is downloaded, then the guest gets the uploaded bytes under the label’s name', async () => {
    const images = [makeJpeg(300, 200, 1), makeJpeg(200, 300, 2), makeJpeg(250, 250, 3)]
    const gallery = await liveGallery({ names: ['Ada Lovelace', 'Grace Hopper'], images })
    const { page } = await guest()
    await page.goto(`/g/${gallery.id}`)

    // Under a megabyte, in kilobytes as phones count them (1000 bytes).
    const total = images.reduce((sum, image) => sum + image.length, 0)
    const zipLink = page.locator('.actions a')
    expect(await zipLink.textContent()).toBe(`Download all (3 photos, ${Math.round(total / 1000)} KB)`)

    const [photo] = await Promise.all([page.waitForEvent('download'), page.click('[aria-label="Download photo 1 of 3"]')])
    expect(photo.suggestedFilename()).toBe('Ada & Grace 1.jpg')
    expect(await readFile(await photo.path())).toEqual(images[0])

    const [zip] = await Promise.all([page.waitForEvent('download'), zipLink.click()])
    expect(zip.suggestedFilename()).toBe('Ada & Grace.zip')
    const entries = await unzip(await readFile(await zip.path()))
    expect(entries.map((entry) => [entry.name, entry.bytes])).toEqual(images.map((bytes, i) => [`Ada & Grace ${i + 1}.jpg`, bytes]))
  })

  it('when a photo is opened, then the viewer shows it full size, the arrow key moves on, and Escape returns to the photo', async () => {
    const images = [makeJpeg(60, 40, 11), makeJpeg(40, 60, 22), makeJpeg(50, 50, 33)]
    const gallery = await liveGallery({ images })
    const { page } = await guest()
    await page.goto(`/g/${gallery.id}`)
    const viewer = page.locator('dialog.viewer')

    await page.click('[aria-label="Photo 1 of 3, full size"]')
    await viewer.waitFor({ state: 'visible' })
    expect(await viewerShows(page)).toEqual({ count: 'Photo 1 of 3', alt: await altOf(page, 1), naturalWidth: 60, naturalHeight: 40 })

    await page.keyboard.press('ArrowRight')
    await page.locator('.viewer-count', { hasText: 'Photo 2 of 3' }).waitFor()
    expect(await viewerShows(page)).toEqual({ count: 'Photo 2 of 3', alt: await altOf(page, 2), naturalWidth: 40, naturalHeight: 60 })
    expect(await viewer.locator('[data-viewer="download"]').getAttribute('href')).toBe(
      await page.locator('#photo-2 [download]').evaluate((link: { href: string }) => link.href),
    )

    await page.keyboard.press('Escape')
    await viewer.waitFor({ state: 'hidden' })
    // Back where the guest was: on the photo they last looked at (the dialog's close event, a task
    // after it is hidden, moves the focus there from where Chromium restored it).
    // (Polled with evaluate: waitForFunction's string form is an eval, which the page's CSP refuses.)
    const focused = () => page.evaluate<string | null>(`document.activeElement?.getAttribute('aria-label') ?? null`)
    await until(focused, (label) => label === 'Photo 2 of 3, full size', 5_000).catch(() => undefined)
    expect(await page.evaluate(`document.activeElement.getAttribute('aria-label')`)).toBe('Photo 2 of 3, full size')
  })

  it('when shown on a phone, then every button and link is at least 44×44 px', async () => {
    const gallery = await liveGallery()
    const { page } = await guest({ webShare: true })
    await page.goto(`/g/${gallery.id}`)
    type Target = {
      checkVisibility(): boolean
      getBoundingClientRect(): { width: number; height: number }
      getAttribute(name: string): string | null
      textContent: string
    }
    const sizes = await page
      .locator('.actions :is(a, button), .share-buttons :is(a, button), .photo :is(a, button)')
      .evaluateAll((targets: Target[]) =>
        targets
          .filter((target) => target.checkVisibility())
          .map((target) => {
            const { width, height } = target.getBoundingClientRect()
            return { name: target.getAttribute('aria-label') ?? target.textContent, width, height }
          }),
      )
    // The zip, five share buttons, and per photo its full-size link and its download.
    expect(sizes).toHaveLength(1 + 5 + 3 * 2)
    expect(sizes.filter((size) => !(size.width >= 44 && size.height >= 44))).toEqual([])
  })
})

describe('the page of a gallery whose photos are on their way, in Chromium', () => {
  it('when the booth completes the session, then the open page turns into the gallery without a reload, and only then counts a view', async () => {
    const { sets } = await seedEvent('Harbour Lights Gala')
    const session = await register(sets[0]!.id, ['Ada Lovelace', 'Grace Hopper'])
    const visitor = await guest()
    const { page } = visitor
    const pageUrl = `${app.url}/g/${session.id}`
    const navigations: string[] = []
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()))

    // The page's own check, a few seconds after it loads.
    const polled = page.waitForResponse((response) => response.url() === pageUrl && response.request().resourceType() === 'fetch')
    const response = await page.goto(pageUrl)
    expect(response?.status()).toBe(200)
    expect(await page.getAttribute('body', 'data-page')).toBe('waiting')
    expect(await page.textContent('h1')).toBe('Your photos are on their way')
    await page.evaluate('window.stillThisPage = true')

    // It has asked once again and is still waiting: nothing has been counted.
    await polled
    expect(await page.getAttribute('body', 'data-page')).toBe('waiting')
    expect(visitor.sent).toEqual([])
    expect(await trackingRows(session.id)).toEqual([])

    const images = [makeJpeg(36, 24, 5), makeJpeg(24, 36, 6)]
    await complete(session.id, images)
    await page.waitForSelector('body[data-page="gallery"]', { timeout: 15_000 })

    expect(await page.evaluate('window.stillThisPage')).toBe(true)
    expect(navigations).toEqual([pageUrl])
    // A screen reader is taken to the gallery's heading.
    expect(await page.evaluate('document.activeElement.tagName + " " + document.activeElement.textContent')).toBe('H1 Ada & Grace')
    expect(await page.title()).toBe('Ada & Grace · Harbour Lights Gala')
    // At their own size: the full-size photos, or their display copies if made by the time the page came.
    const shown = await photosShown(page)
    expect(shown.map(({ pixels }) => pixels)).toEqual([
      [36, 24],
      [24, 36],
    ])
    const { photos } = await copiesMade(session.id)
    for (const [i, { src }] of shown.entries()) {
      expect([photos[i]!.url, photos[i]!.copies![0]!.url]).toContain(src)
    }
    expect(await visitor.beacons.count(1)).toEqual([{ body: { kind: 'view', sessionId: session.id }, status: 204 }])
    expect(visitor.sent).toHaveLength(1)
    expect(await trackingRows(session.id)).toEqual([{ kind: 'view', channel: null }])
  })
})

describe('an event’s page and the pages that lead nowhere, in Chromium', () => {
  it('when a public event’s page is opened, then it lists its galleries, links to each, and counts one view of the event', async () => {
    const { event, sets } = await seedEvent('Harbour Lights Gala', ['Photo booth', 'Garden'])
    const first = await liveGallery({ setId: sets[0]!.id, names: ['Ada Lovelace', 'Grace Hopper'] })
    const second = await liveGallery({ setId: sets[1]!.id, names: ['Katherine Johnson'] })
    const visitor = await guest()
    const { page } = visitor

    const response = await page.goto(`/g/events/${event.slug}`)
    expect(response?.status()).toBe(200)
    expect(await page.getAttribute('body', 'data-page')).toBe('event')
    expect(await page.textContent('h1')).toBe('Harbour Lights Gala')
    expect(await page.locator('.set h2').allTextContents()).toEqual(['Photo booth', 'Garden'])
    const cards = await page
      .locator('.card a')
      .evaluateAll((links: { href: string; querySelector(selector: string): { textContent: string } }[]) =>
        links.map((link) => [link.querySelector('.card-label').textContent, link.href]),
      )
    expect(cards).toEqual([
      ['Ada & Grace', `${app.url}/g/${first.id}`],
      ['Katherine Johnson', `${app.url}/g/${second.id}`],
    ])
    expect(await visitor.beacons.count(1)).toEqual([{ body: { kind: 'view', eventId: event.id }, status: 204 }])
    expect(await eventViews(event.id)).toBe(1)

    // A card opens that gallery.
    await page.click('text=Katherine Johnson')
    await page.waitForSelector('body[data-page="gallery"]')
    expect(page.url()).toBe(`${app.url}/g/${second.id}`)
    expect(await page.textContent('h1')).toBe('Katherine Johnson')
    expect((await visitor.beacons.count(2))[1]).toEqual({ body: { kind: 'view', sessionId: second.id }, status: 204 })
    expect(await eventViews(event.id)).toBe(1)
  })

  it('when a private event, an unknown session or a cancelled session is opened, then the guest gets the 404 page and nothing is counted', async () => {
    const hidden = await seedEvent('Private Dinner', ['Photo booth'], { isPrivate: true })
    await liveGallery({ setId: hidden.sets[0]!.id })
    const cancelled = await register(hidden.sets[0]!.id, ['Ada Lovelace'])
    await booth.booth.cancel({ params: { sessionId: cancelled.id } })
    const visitor = await guest()
    const { page } = visitor

    for (const [path, heading] of [
      [`/g/events/${hidden.event.slug}`, 'We can’t find this event'],
      ['/g/AAAAAAAAAAAAAAAAAAAAAA', 'We can’t find these photos'],
      [`/g/${cancelled.id}`, 'There are no photos here'],
    ] as const) {
      const response = await page.goto(path)
      expect(response?.status(), path).toBe(404)
      expect(await page.getAttribute('body', 'data-page'), path).toBe('missing')
      expect(await page.textContent('h1'), path).toBe(heading)
    }
    expect(visitor.sent).toEqual([])
    expect(await eventViews(hidden.event.id)).toBe(0)
  })
})

describe('screenshots of the pages', () => {
  it('when shown on a phone and on a desktop, then each page is captured for review', async () => {
    // Photos as a booth's camera makes them (5184×3456 frames, 6.8 MB, EXIF orientation), in the
    // shapes cameras and phones take: 3:2, 2:3 (held upright: orientation 6), square, 16:9, 9:16, 4:5.
    const camera = Promise.all(
      [
        { width: 5184, height: 3456 },
        { width: 5184, height: 3456, orientation: 6 },
        { width: 3456, height: 3456 },
        { width: 5184, height: 2916 },
        { width: 5184, height: 2916, orientation: 6 },
        { width: 3456, height: 4320 },
      ].map((shape, i) => makeCameraJpeg({ ...shape, seed: 3 * i + 2 })),
    )
    const { event, sets } = await seedEvent('Harbour Lights Summer Gala', ['Photo booth', 'Garden terrace'])
    const gallery = await liveGallery({ setId: sets[0]!.id, names: ['Ada Lovelace', 'Grace Hopper'], images: await camera })
    const others = [
      await liveGallery({ setId: sets[0]!.id, names: ['Katherine Johnson'], images: [makeJpeg(30, 40, 90), makeJpeg(40, 30, 120)] }),
      await liveGallery({ setId: sets[1]!.id, names: ['Alan Turing', 'Joan Clarke', 'Tommy Flowers'], images: [makeJpeg(40, 30, 200)] }),
      await liveGallery({
        setId: sets[1]!.id,
        names: ['Hedy Lamarr'],
        images: [makeJpeg(30, 30, 150), makeJpeg(30, 40, 60), makeJpeg(40, 30, 10)],
      }),
    ]
    const waiting = await register(sets[0]!.id, ['Mary Jackson'])
    // The pages as guests see them a second or so after the booth: from the display copies.
    await Promise.all([gallery, ...others].map((session) => copiesMade(session.id, 90_000)))

    const pages = {
      gallery: `/g/${gallery.id}`,
      waiting: `/g/${waiting.id}`,
      event: `/g/events/${event.slug}`,
      missing: '/g/AAAAAAAAAAAAAAAAAAAAAA',
    }
    for (const [size, options] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ] as const) {
      const { page } = await guest({ context: options })
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(path)
        expect(await page.getAttribute('body', 'data-page')).toBe(name)
        await imagesInView(page)
        await page.screenshot({ path: resolve(SCREENSHOTS, `${name}-${size}.png`), animations: 'disabled', caret: 'hide' })
      }
    }
    if (process.env.UPDATE_README_SCREENSHOT === '1') {
      await mkdir(resolve(ROOT, 'docs'), { recursive: true })
      await copyFile(resolve(SCREENSHOTS, 'gallery-phone.png'), resolve(ROOT, 'docs/gallery-phone.png'))
    }
  }, 180_000)
})

// ————— helpers —————

/** A guest's browser (a phone unless told), closed and checked for errors after the test. */
async function guest(options: GuestOptions = {}): Promise<Guest> {
  const opened = await openGuest(browser, app.url, options)
  guests.push(opened)
  return opened
}

/**
 * The gallery once the copies worker has made every photo's copies (a second or so per camera
 * photo, off the request path): the pages use them from then on.
 */
async function copiesMade(sessionId: string, ms = 30_000) {
  return until(
    () => kiosk.gallery.getGallery({ sessionId }),
    (gallery) => gallery.photos.every((photo) => photo.copies !== undefined),
    ms,
  )
}

async function visibleShareButtons(page: Page): Promise<string[]> {
  const channels = []
  for (const button of await page.locator('[data-share]').all()) {
    if (await button.isVisible()) channels.push((await button.getAttribute('data-share'))!)
  }
  return channels
}

async function viewerShows(page: Page) {
  const image = page.locator('.viewer-image')
  return {
    count: await page.textContent('.viewer-count'),
    ...(await image.evaluate(async (img: { decode(): Promise<void>; naturalWidth: number; naturalHeight: number; alt: string }) => {
      await img.decode()
      return { alt: img.alt, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }
    })),
  }
}

const altOf = (page: Page, n: number) => page.getAttribute(`#photo-${n} .photo-open img`, 'alt')

/** Waits until the images in view have loaded and been decoded: a screenshot shows them. */
async function imagesInView(page: Page) {
  await page.evaluate(`Promise.all([...document.images]
    .filter((img) => { const box = img.getBoundingClientRect(); return box.width > 0 && box.bottom > 0 && box.top < innerHeight })
    .map((img) => img.decode()))`)
}

/** What was counted for a session, in order. */
async function trackingRows(sessionId: string) {
  return app.orm.em
    .fork()
    .execute<{ kind: string; channel: string | null }[]>('select kind, channel from tracking_event where session_id = ? order by id', [
      sessionId,
    ])
}

async function eventViews(eventId: string) {
  const [row] = await app.orm.em
    .fork()
    .execute<{ count: string }[]>(`select count(*) from tracking_event where event_id = ? and session_id is null and kind = 'view'`, [
      eventId,
    ])
  return Number(row!.count)
}

async function seedEvent(name: string, sets = ['Photo booth'], { isPrivate = false } = {}) {
  return createEvent(app.orm.em.fork(), {
    slug: uniqueSlug(),
    name,
    startAt: new Date('2026-06-20T18:00:00Z'),
    isPrivate,
    sets: sets.map((setName, i) => ({ slug: `set-${i + 1}`, name: setName })),
  })
}

/** The kiosk's registration: the session is active, its link already works. */
async function register(setId: string, names: string[]) {
  return kiosk.kiosk.registerGuests({
    params: { setId },
    body: { guests: names.map((name, i) => ({ name, email: `guest${i}@example.org` })) },
  })
}

/** The booth's side: presigned uploads of these bytes, then completion. */
async function complete(sessionId: string, images: Buffer[]) {
  const { uploads } = await booth.booth.createUploads({ params: { sessionId }, body: { count: images.length } })
  for (const [i, upload] of uploads.entries()) {
    const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[i] })
    if (!response.ok) throw new Error(`upload failed: ${response.status} ${await response.text()}`)
  }
  await booth.booth.complete({ params: { sessionId }, body: { photos: uploads.map((upload) => upload.key) } })
}

/** A live gallery made as production makes one: registered by the kiosk, uploaded and completed by the booth. */
async function liveGallery({
  event = 'Harbour Lights Gala',
  setId,
  names = ['Ada Lovelace'],
  images = [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2), makeJpeg(20, 20, 3)],
}: { event?: string; setId?: string; names?: string[]; images?: Buffer[] } = {}) {
  const session = await register(setId ?? (await seedEvent(event)).sets[0]!.id, names)
  await complete(session.id, images)
  // Until its copies are made, the guest's link still says the photos are on their way.
  await copiesSettled(app, session.id)
  return session
}
