import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import axe from 'axe-core'
import type { Browser, BrowserContextOptions, CDPSession, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import {
  closeGuests,
  launchChromium,
  openGuest,
  photosShown,
  Recorder,
  type Guest,
  type GuestOptions,
  type ShownImage,
} from '../support/browser.js'
import { makeCameraJpeg } from '../support/camera.js'
import { scratchDatabases } from '../support/databases.js'
import { createTestBoothKey, startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { until } from '../support/until.js'

/**
 * The guest's pages on a phone, with photos as a booth's camera makes them (5184×3456, 5.6 MB, EXIF
 * orientation and GPS): the grid shows display copies sized for the screen, never the camera's
 * file; the viewer shows the large copy and follows swipes; the event page's cards are named by
 * what they show.
 */

/** A phone as guests hold one (an iPhone 14's CSS size) at its real density; and a small one. */
const phone = (width: number): BrowserContextOptions => ({
  viewport: { width, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
})
const WIDTHS = [390, 320] as const
const PHOTOS = 10

type Copy = { url: string; width: number; height: number; type: string }
type Photo = { id: string; url: string; width: number; height: number; copies?: Copy[] }
type LiveGallery = { id: string; label: string; event: { slug: string }; photos: Photo[]; preview?: Copy }

// One database of this file's own: another file's server (vitest runs files at once where it has
// the cores) would otherwise claim these photos for its copies worker, and find no upload in its
// own bucket (the photo is then marked failed, without copies).
const databases = scratchDatabases('browser_phone')
let app: TestServer
let browser: Browser
let kiosk: PhotoBoothClient
let gallery: LiveGallery
/** Every gallery of the event, the 10-photo one first. */
let cards: LiveGallery[]
const guests: Guest[] = []

beforeAll(async () => {
  // The camera's files, made while the service and the browser start (seeds vary the scenes; two are
  // held upright, EXIF orientation 6: their display copies are portrait).
  const images = Promise.all(
    Array.from({ length: PHOTOS }, (_, i) => makeCameraJpeg({ seed: i + 1, orientation: i === 2 || i === 7 ? 6 : 1 })),
  )
  ;[app, browser] = await Promise.all([databases.create().then((databaseUrl) => startTestServer({ databaseUrl })), launchChromium()])
  kiosk = createClient({ baseUrl: app.url })
  const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
  const { event, sets } = await createEvent(app.orm.em.fork(), {
    slug: uniqueSlug('phone'),
    name: 'Harbour Lights Gala',
    startAt: new Date('2026-06-20T18:00:00Z'),
    isPrivate: false,
    sets: [
      { slug: 'photo-booth', name: 'Photo booth' },
      { slug: 'garden', name: 'Garden' },
    ],
  })
  const camera = await images

  /** Registered by the kiosk, uploaded and completed by the booth: the way production makes a gallery. */
  const live = async (setId: string, names: string[], photos: Buffer[]) => {
    const session = await kiosk.kiosk.registerGuests({
      params: { setId },
      body: { guests: names.map((name, i) => ({ name, email: `guest${i}@example.org` })) },
    })
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: photos.length } })
    for (const [i, upload] of uploads.entries()) {
      const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: photos[i] })
      if (!response.ok) throw new Error(`upload failed: ${response.status} ${await response.text()}`)
    }
    await booth.booth.complete({ params: { sessionId: session.id }, body: { photos: uploads.map((upload) => upload.key) } })
    return session.id
  }
  const main = await live(sets[0]!.id, ['Ada Lovelace', 'Grace Hopper'], camera)
  const garden = await live(sets[1]!.id, ['Katherine Johnson'], [camera[2]!])
  const newer = await live(sets[0]!.id, ['Alan Turing', 'Joan Clarke', 'Tommy Flowers'], [camera[5]!])

  // The copies are made off the request path, a second or so per photo: the pages use them once made.
  const withCopies = (sessionId: string) =>
    until(
      () => kiosk.gallery.getGallery({ sessionId }) as Promise<LiveGallery>,
      (read) => read.photos.every((photo) => photo.copies !== undefined) && read.preview !== undefined,
      90_000,
    )
  cards = await Promise.all([main, newer, garden].map(withCopies))
  gallery = cards[0]!
  expect(gallery.event.slug).toBe(event.slug)
  expect(gallery.photos).toHaveLength(PHOTOS)
  // Camera-sized, each with its four display copies (480, 720, 960, 1600 px on the long side).
  for (const photo of gallery.photos) {
    expect(Math.max(photo.width, photo.height)).toBe(5184)
    expect(photo.copies!.map((copy) => Math.max(copy.width, copy.height))).toEqual([480, 720, 960, 1600])
  }
  expect(gallery.photos.filter((photo) => photo.height > photo.width)).toHaveLength(2)
}, 180_000)

// Whatever a test did, no page it opened showed an error, broke its policy or asked another origin.
afterEach(() => closeGuests(guests.splice(0)))

afterAll(async () => {
  await browser?.close()
  await app?.stop()
  await databases.dropAll()
})

describe('a gallery of camera photos on a phone, in Chromium', () => {
  it.each(WIDTHS)(
    'when shown %i px wide at 3× density, then every photo is a display copy sized for its cell, never the camera’s file',
    async (width) => {
      const { page } = await guest({ context: phone(width) })
      await page.goto(`/g/${gallery.id}`)

      // The first row is fetched first, at high priority; none of a phone's first screen waits to be scrolled to.
      const loading = await page
        .locator('.photos img')
        .evaluateAll((images: { getAttribute(name: string): string | null; getBoundingClientRect(): { top: number } }[]) =>
          images.map((img) => ({
            top: Math.round(img.getBoundingClientRect().top),
            high: img.getAttribute('fetchpriority'),
            lazy: img.getAttribute('loading'),
          })),
        )
      const firstRow = loading.filter((image) => image.top === loading[0]!.top)
      expect(firstRow.length).toBeGreaterThan(1)
      expect(loading.map((image) => image.high)).toEqual(loading.map((image) => (image.top === loading[0]!.top ? 'high' : null)))
      expect(loading.filter((image) => image.top < 844 && image.lazy)).toEqual([])

      const shown = await photosShown(page)
      expect(shown).toHaveLength(PHOTOS)
      for (const [i, image] of shown.entries()) {
        const photo = gallery.photos[i]!
        const copy = photo.copies!.find((candidate) => candidate.url === image.src)
        const what = `photo ${i + 1} at ${width} px: ${image.src} in a cell ${image.cssWidth} px wide`
        // A display copy (WebP), not the full-size photo the download gives.
        expect(image.src, what).not.toBe(photo.url)
        expect(copy, what).toBeDefined()
        expect(image.pixels, what).toEqual([copy!.width, copy!.height])
        // At least the pixels a 3× screen has for it (a copy's width is whole pixels; the cell's may not be)…
        const devicePixels = image.cssWidth * 3
        expect(copy!.width, what).toBeGreaterThanOrEqual(Math.floor(devicePixels))
        // …and the smallest copy that has them: the next one down would be soft.
        const smaller = photo.copies!.filter((candidate) => candidate.width < copy!.width).at(-1)
        if (smaller) expect(smaller.width, what).toBeLessThan(devicePixels)
      }
    },
  )

  it.each(WIDTHS)(
    'when a photo is tapped %i px wide, then the viewer shows its large copy, swipes move through the photos, and the position is never cut off',
    async (width) => {
      // 390 px: a phone that can share files ("Save to Photos" offered); 320 px: one that cannot.
      const canShareFiles = width === 390
      const visitor = await guest({ context: phone(width), webShare: canShareFiles })
      const { page, context } = visitor
      const requested: string[] = []
      context.on('request', (request) => void requested.push(request.url()))
      const sharesInTap = await watchShareTasks(visitor)
      await page.goto(`/g/${gallery.id}`)
      const viewer = page.locator('dialog.viewer')
      const large = (n: number) => gallery.photos[n - 1]!.copies!.at(-1)!

      // While the first photo is looked at, the second one's large copy is fetched ahead.
      const preloaded = context.waitForEvent('requestfinished', (request) => request.url() === large(2).url)
      await page.tap('.photos li:nth-child(1) a')
      await viewer.waitFor({ state: 'visible' })
      expect(await viewerShows(page)).toEqual({ count: '1 of 10', ...largeCopyOf(1) })
      await preloaded
      expect(await page.locator('[data-viewer="save"]').isVisible()).toBe(canShareFiles)
      // Like a phone's photo app: close at the top right, the actions on one row at the bottom.
      const close = (await page.locator('[data-viewer="close"]').boundingBox())!
      expect(close.x + close.width).toBeGreaterThan(width - 16)
      expect(close.y).toBeLessThan(16)
      const bar = await page
        .locator('.viewer-bar > :visible')
        .evaluateAll(
          (controls: { getBoundingClientRect(): { top: number; left: number; right: number; width: number; height: number } }[]) =>
            controls.map((control) => control.getBoundingClientRect()),
        )
      expect(new Set(bar.map((box) => Math.round(box.top + box.height / 2))).size, 'the actions wrap').toBe(1)
      expect(bar[0]!.top).toBeGreaterThan(844 - 100)
      for (const box of bar) expect(box.width >= 44 && box.height >= 44 && box.left >= 0 && box.right <= width).toBe(true)

      const cdp = await context.newCDPSession(page)
      // Left: the next photo; right: back; right again from the first: round to the last.
      for (const [direction, n] of [
        ['left', 2],
        ['right', 1],
        ['right', 10],
        ['left', 1],
      ] as const) {
        await swipe(page, cdp, direction)
        await page.locator('.viewer-count', { hasText: `${n} of 10` }).waitFor()
        expect(await viewerShows(page), `swiped ${direction} to photo ${n}`).toEqual({ count: `${n} of 10`, ...largeCopyOf(n) })
      }

      if (canShareFiles) {
        // Save and Share: the photo as a JPEG file (made from its large copy while it was looked at)
        // handed to the share sheet within the tap's own task, as Safari requires; Share is counted.
        const ready = page.locator('[data-viewer="save"][aria-disabled="false"]')
        await ready.waitFor()
        await page.tap('[data-viewer="save"]')
        await page.tap('[data-viewer="share"]')
        const file = { name: 'Ada & Grace 1.jpg', type: 'image/jpeg', size: expect.any(Number) }
        expect(await visitor.shared.count(2)).toEqual([{ files: [file] }, { title: await page.title(), files: [file] }])
        expect(await sharesInTap.count(2)).toEqual([true, true])
        expect((await visitor.shared.count(2))[0]!.files[0]!.size).toBeGreaterThan(50_000)
        expect((await visitor.beacons.count(2))[1]).toEqual({
          body: { kind: 'share', sessionId: gallery.id, channel: 'native' },
          status: 204,
        })
        // Nothing fetched a full-size photo: the file came from the copy already on screen.
        expect(requested.filter((url) => gallery.photos.some((photo) => photo.url === url))).toEqual([])
      }

      // Swiped down, the viewer closes, as a phone's photo app does.
      await swipe(page, cdp, 'down')
      await viewer.waitFor({ state: 'hidden' })
    },
  )
})

describe('an event’s page of camera photos on a phone, in Chromium', () => {
  it('when opened, then each card shows its gallery’s first photo sharp at 3×, is named by its visible text, and axe finds nothing to fault', async () => {
    const { page } = await guest({ context: phone(390) })
    await page.goto(`/g/events/${gallery.event.slug}`)
    // The galleries as the page lists them: its sets in order, each set's newest first.
    const listed = (await kiosk.gallery.getEventPage({ slug: gallery.event.slug })).sets.flatMap((set) => set.sessions)
    expect(listed.map((session) => session.id).sort()).toEqual(cards.map((card) => card.id).sort())

    type Card = {
      href: string
      textContent: string
      getAttribute(name: string): string | null
      querySelector(selector: string): ShownImage
    }
    const shown = await page.locator('.card a').evaluateAll((links: Card[]) =>
      Promise.all(
        links.map(async (link) => {
          const img = link.querySelector('img')
          await img.decode()
          return {
            href: link.href,
            text: link.textContent,
            ariaLabel: link.getAttribute('aria-label'),
            src: img.currentSrc,
            devicePixels: img.getBoundingClientRect().width * 3,
          }
        }),
      ),
    )
    expect(shown).toEqual(
      listed.map((card, i) => ({
        href: `${app.url}/g/${card.id}`,
        text: `${card.label} ${card.photos.length === 1 ? '1 photo' : `${card.photos.length} photos`}`,
        ariaLabel: null,
        // The smallest copy with the pixels a 3× screen has for the card.
        src: card.photos[0]!.copies!.find((copy) => copy.width >= Math.floor(shown[i]!.devicePixels))!.url,
        devicePixels: expect.any(Number),
      })),
    )
    // The link's accessible name is what it shows (WCAG 2.5.3, label in name): speech users say what they see.
    for (const { text } of shown) expect(await page.getByRole('link', { name: text, exact: true }).count(), text).toBe(1)

    // axe-core, brought in through DevTools (the page's policy allows no inline script): every rule it
    // runs by default, and label-in-name (experimental in axe) and target size (WCAG 2.2) too.
    await page.evaluate(axe.source)
    const audit = await runAxe(page, { rules: { 'label-content-name-mismatch': { enabled: true }, 'target-size': { enabled: true } } })
    expect(audit.violations).toEqual([])
    // Nothing it could not decide either (contrast over an image, say).
    expect(audit.incomplete).toEqual([])
    expect(audit.passes).toEqual(expect.arrayContaining(['link-name', 'image-alt', 'color-contrast', 'target-size']))
    // The cards have no aria-label, so label-in-name has nothing to check: its verdict is by construction.
    expect(audit.inapplicable).toContain('label-content-name-mismatch')

    // The rule is live: a card named otherwise than by its visible text is a violation.
    await page.evaluate(`document.querySelector('.card a').setAttribute('aria-label', 'Open gallery')`)
    const control = await runAxe(page, {
      runOnly: ['label-content-name-mismatch'],
      rules: { 'label-content-name-mismatch': { enabled: true } },
    })
    expect(control.violations).toEqual([{ id: 'label-content-name-mismatch', targets: [expect.any(String)] }])
  })
})

// ————— helpers —————

/** A guest's browser, closed and checked for errors after the test. */
async function guest(options: GuestOptions): Promise<Guest> {
  const opened = await openGuest(browser, app.url, options)
  guests.push(opened)
  return opened
}

/** The viewer's position, and the image it shows once decoded, with the position's box. */
async function viewerShows(page: Page) {
  // Its large copy, once loaded (the grid's copy stands in meanwhile).
  await page.locator('.viewer-stage:not(.loading)').waitFor()
  const count = page.locator('.viewer-count')
  const box = await count.evaluate(
    (element: { scrollWidth: number; clientWidth: number; getBoundingClientRect(): { left: number; right: number } }) => {
      const { left, right } = element.getBoundingClientRect()
      return { scrollWidth: element.scrollWidth, clientWidth: element.clientWidth, left, right }
    },
  )
  const viewport = page.viewportSize()!
  // Never cut off: the text fits its box, and the box is on the screen.
  expect(box.scrollWidth, 'the position is cut off').toBeLessThanOrEqual(box.clientWidth)
  expect(box.left).toBeGreaterThanOrEqual(0)
  expect(box.right).toBeLessThanOrEqual(viewport.width)
  const image = await page.locator('.viewer-image').evaluate(async (img: ShownImage) => {
    await img.decode()
    return { src: img.currentSrc, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }
  })
  return { count: await count.textContent(), ...image }
}

/** What the viewer shows for photo n: its largest (1600 px) copy, at the copy's own size. */
function largeCopyOf(n: number) {
  const copy = gallery.photos[n - 1]!.copies!.at(-1)!
  return { src: copy.url, naturalWidth: copy.width, naturalHeight: copy.height }
}

/**
 * A finger's swipe across the viewer's image, 160 px sideways, as the phone's touch screen reports
 * it (DevTools' touch input: touchstart, touchmoves, touchend). The finger comes to rest before it
 * lifts: a swipe still moving would start a fling, and the browser takes the next tap to stop the
 * fling rather than as a click. The events carry their own times: nothing waits.
 */
async function swipe(page: Page, cdp: CDPSession, direction: 'left' | 'right' | 'down') {
  const box = (await page.locator('.viewer-image').boundingBox())!
  const middle = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
  const [from, to] =
    direction === 'down'
      ? [
          { x: middle.x, y: middle.y - 80 },
          { x: middle.x + 4, y: middle.y + 120 },
        ]
      : direction === 'left'
        ? [
            { x: middle.x + 80, y: middle.y },
            { x: middle.x - 80, y: middle.y + 4 },
          ]
        : [
            { x: middle.x - 80, y: middle.y },
            { x: middle.x + 80, y: middle.y + 4 },
          ]
  const start = Date.now() / 1000
  const touch = (type: string, touchPoints: { x: number; y: number }[], after: number) =>
    cdp.send('Input.dispatchTouchEvent', { type: type as 'touchStart', touchPoints, timestamp: start + after })
  await touch('touchStart', [from], 0)
  for (let step = 1; step <= 4; step++)
    await touch('touchMove', [{ x: from.x + ((to.x - from.x) * step) / 4, y: from.y + ((to.y - from.y) * step) / 4 }], 0.03 * step)
  await touch('touchMove', [to], 0.5)
  await touch('touchEnd', [], 0.52)
}

/**
 * Whether each call of `navigator.share` came within the task of a tap (its click event), as
 * Safari requires: a call after the tap's task (an awaited fetch, say) is recorded as false.
 */
async function watchShareTasks({ context }: Guest): Promise<Recorder<boolean>> {
  const calls = new Recorder<boolean>('share calls')
  await context.exposeBinding('recordShareTask', (_source, inTap: boolean) => calls.push(inTap))
  await context.addInitScript({
    content: `let inTap = false
      addEventListener('click', () => { inTap = true; setTimeout(() => { inTap = false }, 0) }, true)
      const share = navigator.share
      navigator.share = (data) => { window.recordShareTask(inTap); return share(data) }`,
  })
  return calls
}

type Audit = {
  violations: { id: string; targets: string[] }[]
  passes: string[]
  inapplicable: string[]
  incomplete: { id: string; targets: string[] }[]
}

/** axe.run on the whole page: the rules that failed, or could not decide, with the elements concerned; the ones that passed; the ones with nothing to check. */
async function runAxe(page: Page, options: Record<string, unknown>): Promise<Audit> {
  return page.evaluate<Audit>(`axe.run(document, ${JSON.stringify(options)}).then((results) => ({
    violations: results.violations.map((rule) => ({ id: rule.id, targets: rule.nodes.map((node) => node.target.join(' ')) })),
    passes: results.passes.map((rule) => rule.id),
    inapplicable: results.inapplicable.map((rule) => rule.id),
    incomplete: results.incomplete.map((rule) => ({ id: rule.id, targets: rule.nodes.map((node) => node.target.join(' ')) })),
  }))`)
}
