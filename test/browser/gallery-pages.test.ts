import { readFile } from 'node:fs/promises'

import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { closeGuests, launchChromium, openGuest, photosShown, type Guest, type GuestOptions } from '../support/browser.js'
import { copiesSettled } from '../support/gallery-fixture.js'
import { scratchDatabases } from '../support/databases.js'
import { createTestBoothKey, seedSession, startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { until } from '../support/until.js'
import { unzip } from '../support/unzip.js'

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
    // Without Web Share (a desktop browser), the link button copies the link; Facebook's sharer is a link.
    expect(await visibleShareButtons(page)).toEqual(['link', 'facebook'])
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

  it('when the link is shared, then the share is counted with its channel and the guest gets what they asked for, told where they look', async () => {
    const images = [makeJpeg(40, 30, 7), makeJpeg(30, 40, 9)]
    const gallery = await liveGallery({ images })
    const pageUrl = `${app.url}/g/${gallery.id}`

    // A browser without a share sheet: the link to the clipboard, and the page says so over the photos.
    const desktop = await guest()
    await desktop.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
    await desktop.page.goto(`/g/${gallery.id}`)
    await desktop.beacons.count(1)
    await desktop.page.evaluate('scrollTo(0, document.body.scrollHeight)')
    await desktop.page.click('[data-share="link"]')
    const toast = desktop.page.locator('.toast', { hasText: 'Link copied' })
    await toast.waitFor()
    expect(
      await toast.evaluate(
        (element: { getBoundingClientRect(): { top: number; bottom: number } }) => element.getBoundingClientRect().bottom <= 844,
      ),
    ).toBe(true)
    expect(await desktop.page.evaluate('navigator.clipboard.readText()')).toBe(pageUrl)
    expect((await desktop.beacons.count(2))[1]).toEqual({ body: { kind: 'share', sessionId: gallery.id, channel: 'copy' }, status: 204 })

    // Facebook: its sharer opens in a new tab with this page's link (blocked here: nothing leaves the machine).
    const sharer = desktop.context.waitForEvent('request', (request) => new URL(request.url()).hostname === 'www.facebook.com')
    await desktop.page.click('[data-share="facebook"]')
    const sharerUrl = (await sharer).url()
    const opened = new URL(sharerUrl)
    expect(`${opened.origin}${opened.pathname}`).toBe('https://www.facebook.com/sharer/sharer.php')
    expect(opened.searchParams.get('u')).toBe(pageUrl)
    expect((await desktop.beacons.count(3))[2]).toEqual({
      body: { kind: 'share', sessionId: gallery.id, channel: 'facebook' },
      status: 204,
    })
    expect(desktop.foreign.splice(0)).toEqual([sharerUrl])

    // A phone's share sheet: the link, counted as native (the guest picks the app there).
    const phone = await guest({ webShare: true })
    await phone.page.goto(`/g/${gallery.id}`)
    await phone.beacons.count(1)
    expect(await visibleShareButtons(phone.page)).toEqual(['link', 'facebook'])
    await phone.page.click('[data-share="link"]')
    expect((await phone.shared.count(1))[0]).toEqual({ title: await phone.page.title(), url: pageUrl, files: [] })
    expect((await phone.beacons.count(2))[1]).toEqual({ body: { kind: 'share', sessionId: gallery.id, channel: 'native' }, status: 204 })

    expect(await trackingRows(gallery.id)).toEqual([
      { kind: 'view', channel: null },
      { kind: 'share', channel: 'copy' },
      { kind: 'share', channel: 'facebook' },
      { kind: 'view', channel: null },
      { kind: 'share', channel: 'native' },
    ])
  })

  it('when a photo or the whole gallery is downloaded, then the guest gets the uploaded bytes under the label’s name', async () => {
    const images = [makeJpeg(300, 200, 1), makeJpeg(200, 300, 2), makeJpeg(250, 250, 3)]
    const gallery = await liveGallery({ names: ['Ada Lovelace', 'Grace Hopper'], images })
    const { page } = await guest()
    await page.goto(`/g/${gallery.id}`)

    // Under a megabyte, in kilobytes as phones count them (1000 bytes).
    const total = images.reduce((sum, image) => sum + image.length, 0)
    const zipLink = page.locator('[data-zip]')
    expect(await zipLink.getAttribute('aria-label')).toBe(`Download all 3 photos (${Math.round(total / 1000)} KB, zip)`)

    // A photo's download is in the viewer, not under every tile.
    await page.click('.photos li:nth-child(1) a')
    const [photo] = await Promise.all([page.waitForEvent('download'), page.click('[aria-label="Download photo 1 of 3"]')])
    await page.keyboard.press('Escape')
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

    await page.click('.photos li:nth-child(1) a')
    await viewer.waitFor({ state: 'visible' })
    expect(await viewerShows(page)).toEqual({ count: '1 of 3', alt: await altOf(page, 1), naturalWidth: 60, naturalHeight: 40 })

    await page.keyboard.press('ArrowRight')
    await page.locator('.viewer-count', { hasText: '2 of 3' }).waitFor()
    expect(await viewerShows(page)).toEqual({ count: '2 of 3', alt: await altOf(page, 2), naturalWidth: 40, naturalHeight: 60 })
    const { photos } = await copiesMade(gallery.id)
    expect(await viewer.locator('[data-viewer="download"]').getAttribute('href')).toBe(
      `/gallery/${gallery.id}/photos/${photos[1]!.id}/download`,
    )

    await page.keyboard.press('Escape')
    await viewer.waitFor({ state: 'hidden' })
    // Back where the guest was: on the photo they last looked at (the dialog's close event, a task
    // after it is hidden, moves the focus there from where Chromium restored it).
    // (Polled with evaluate: waitForFunction's string form is an eval, which the page's CSP refuses.)
    const focused = () => page.evaluate<string | null>(`document.activeElement?.querySelector('img')?.alt ?? null`)
    await until(focused, (alt) => alt === 'Photo 2 of 3, Ada Lovelace at Harbour Lights Gala', 5_000).catch(() => undefined)
    expect(await focused()).toBe('Photo 2 of 3, Ada Lovelace at Harbour Lights Gala')
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
    const sizes = await page.locator('.actions :is(a, button), .photos a').evaluateAll((targets: Target[]) =>
      targets
        .filter((target) => target.checkVisibility())
        .map((target) => {
          const { width, height } = target.getBoundingClientRect()
          return { name: target.getAttribute('aria-label') ?? target.textContent, width, height }
        }),
    )
    // Share, Facebook and the zip, and each photo (its download is in the viewer).
    expect(sizes).toHaveLength(3 + 3)
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
    // At their own size, from their display copies, swapped in as they are made (never the full-size photos).
    const { photos } = await copiesMade(session.id)
    await until(
      () => page.locator('.photos img:not(.arriving)').count(),
      (count) => count === 2,
      15_000,
    )
    const shown = await photosShown(page)
    expect(shown.map(({ pixels }) => pixels)).toEqual([
      [36, 24],
      [24, 36],
    ])
    expect(shown.map(({ src }) => src)).toEqual(photos.map((photo) => photo.copies![0]!.url))
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

  it('when a set holds more galleries than a page, then “More from …” adds the next ones in place, the keyboard going on to the first of them, to the last', async () => {
    const { event, sets } = await seedEvent('Harbour Lights Gala', ['Photo booth'])
    const sessions = []
    for (let i = 0; i < 14; i++) {
      const createdAt = new Date(Date.UTC(2026, 5, 20, 18, i))
      sessions.push(await seedSession(app.orm, sets[0]!.id, { photos: 1, label: `Guest ${i + 1}`, createdAt }))
    }
    const { page } = await guest()
    const navigations: string[] = []
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()))
    await page.goto(`/g/events/${event.slug}`)
    const labels = () => page.locator('.card-label').allTextContents()
    const newestFirst = sessions.map((session) => session.label).reverse()
    expect(await labels()).toEqual(newestFirst.slice(0, 12))

    await page.getByRole('link', { name: 'More from Photo booth' }).click()
    await until(labels, (shown) => shown.length === 14, 10_000)
    expect(await labels()).toEqual(newestFirst)
    expect(await page.evaluate('document.activeElement.querySelector(".card-label").textContent')).toBe('Guest 2')
    // The last page: no more link.
    expect(await page.locator('[data-more]').count()).toBe(0)
    expect(navigations).toEqual([`${app.url}/g/events/${event.slug}`])
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
  // Its large copy, once loaded (the grid's copy stands in meanwhile).
  await page.locator('.viewer-stage:not(.loading)').waitFor()
  const image = page.locator('.viewer-image')
  return {
    count: await page.textContent('.viewer-count'),
    ...(await image.evaluate(async (img: { decode(): Promise<void>; naturalWidth: number; naturalHeight: number; alt: string }) => {
      await img.decode()
      return { alt: img.alt, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }
    })),
  }
}

const altOf = (page: Page, n: number) => page.getAttribute(`.photos li:nth-child(${n}) img`, 'alt')

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
