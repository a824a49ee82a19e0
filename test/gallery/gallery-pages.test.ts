import { request } from 'node:http'
import { gunzipSync } from 'node:zlib'

import { createClient } from '@photobooth/sdk'
import { describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, seedEvent, seedSession, startTestServer, withoutIds, withTestServer } from '../support/harness.js'

/** The service as a new user starts it: nothing configured but the port. */
const app = withTestServer()

describe('the gallery link a guest is sent, with the defaults', () => {
  it('when a session completes, then its link is GALLERY_URL/<id> on the service itself and opens a page, while the JSON route stays JSON', async () => {
    expect(app.config.galleryUrl).toBe(`${app.url}/g`)
    const gallery = await makeLiveGallery(app, { names: ['Ada Lovelace', 'Grace Hopper'] })
    await copiesSettled(app, gallery.sessionId)
    const [message] = await app.orm.em
      .fork()
      .execute<{ link: string }[]>('select link from outbox_message where session_id = ? limit 1', [gallery.sessionId])
    expect(message!.link).toBe(`${app.url}/g/${gallery.sessionId}`)

    const page = await fetch(message!.link)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await page.text()
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/)
    expect(html).toContain('<h1>Ada &amp; Grace</h1>')

    const json = await fetch(`${app.url}/gallery/${gallery.sessionId}`)
    expect(json.headers.get('content-type')).toMatch(/^application\/json/)
    expect((await json.json()).label).toBe('Ada & Grace')
  })
})

describe('GET /g/:sessionId', () => {
  it('when the gallery is live, then the page shows its photos in order with their sizes, a download per photo and the zip with its size', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 3, label: 'Zoë & Ann' })
    const html = await (await fetch(`${app.url}/g/${session.id}`)).text()

    const images = [...html.matchAll(/<li class="photo"[\s\S]*?<img src="([^"]+)" width="(\d+)" height="(\d+)" alt="([^"]+)"/g)]
    expect(images.map(([, src, width, height]) => ({ src, width: Number(width), height: Number(height) }))).toEqual(
      session.photos.map((photo) => ({ src: `${app.url}/photos/${photo.storageKey}`, width: photo.width, height: photo.height })),
    )
    expect(images.map(([, , , , alt]) => alt)).toEqual([1, 2, 3].map((n) => `Photo ${n} of 3, Zoë &amp; Ann at Test Event`))
    const downloads = [...html.matchAll(/href="([^"]+\/download)" download/g)].map(([, href]) => href)
    expect(downloads).toEqual(session.photos.map((photo) => `/gallery/${session.id}/photos/${photo.id}/download`))
    // seedSession records 1,000 bytes per photo.
    expect(html).toContain(
      `<a class="button primary" href="/gallery/${session.id}/zip" download data-zip>Download all (3 photos, 3 KB)</a>`,
    )
  })

  it('when the photos were uploaded, then the download link answers an attachment and "Download all" shows the zip of the recorded sizes', async () => {
    const gallery = await makeLiveGallery(app)
    await copiesSettled(app, gallery.sessionId)
    const html = await (await fetch(`${app.url}/g/${gallery.sessionId}`)).text()
    // These JPEGs carry no metadata: their full-size copies are the uploads, byte for byte.
    const total = gallery.photos.reduce((sum, photo) => sum + photo.bytes.length, 0)
    expect(html).toContain(`Download all (3 photos, ${Math.max(1, Math.round(total / 1000))} KB)`)
    const [href] = html.match(/\/gallery\/[^"]+\/download/)!
    const download = await fetch(`${app.url}${href}`)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="Ada Lovelace 1\.jpg"/)
    expect(Buffer.from(await download.arrayBuffer()).equals(gallery.photos[0]!.bytes)).toBe(true)
  })

  it('when a link is shared, then the preview tags name the gallery and its first photo with its size, and search engines are kept out', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 2, label: 'Ada' })
    const html = await (await fetch(`${app.url}/g/${session.id}`)).text()
    const first = session.photos[0]!
    expect(metaTags(html)).toMatchObject({
      'og:title': 'Ada · Test Event',
      'og:description': '2 photos from the photo booth at Test Event',
      'og:url': `${app.url}/g/${session.id}`,
      'og:type': 'website',
      'og:image': `${app.url}/photos/${first.storageKey}`,
      'og:image:width': String(first.width),
      'og:image:height': String(first.height),
      'twitter:card': 'summary_large_image',
      'twitter:image': `${app.url}/photos/${first.storageKey}`,
      robots: 'noindex',
    })
  })

  it('when the session is still active, then the page says the photos are on their way, is never cached, and turns into the gallery once completed', async () => {
    const { sets } = await seedEvent(app.orm)
    const kiosk = createClient({ baseUrl: app.url })
    const session = await kiosk.kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Ada Lovelace', email: 'ada@example.org' }] },
    })
    const waiting = await fetch(`${app.url}/g/${session.id}`)
    expect(waiting.status).toBe(200)
    expect(waiting.headers.get('cache-control')).toBe('no-store')
    const html = await waiting.text()
    expect(html).toContain('<h1>Your photos are on their way</h1>')
    expect(html).toContain('data-page="waiting"')
    // Not a guest's name before the gallery is live: the spec hides the session until then.
    expect(withoutIds(html)).not.toContain('Ada')
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="10"></noscript>')

    const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
    await booth.booth.cancel({ params: { sessionId: session.id } })
    const cancelled = await fetch(`${app.url}/g/${session.id}`)
    expect(cancelled.status).toBe(404)
    expect(await cancelled.text()).toContain('<h1>There are no photos here</h1>')
  })

  for (const [state, options] of [
    ['cancelled', { status: 'cancelled', photos: 0 }],
    ['completed without photos', { status: 'completed', photos: 0 }],
  ] as const) {
    it(`when the session is ${state}, then a 404 page says there are no photos (the link itself was right)`, async () => {
      const { sets } = await seedEvent(app.orm)
      const session = await seedSession(app.orm, sets[0]!.id, options)
      const response = await fetch(`${app.url}/g/${session.id}`)
      expect(response.status).toBe(404)
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const html = await response.text()
      expect(html).toContain('<h1>There are no photos here</h1>')
      expect(html).toContain('data-page="missing"')
    })
  }

  it('when the link is unknown, cut short, malformed or has a stray segment, then the not-found page answers 404 and the database is not asked for a malformed one', async () => {
    for (const path of ['/g/AAAAAAAAAAAAAAAAAAAAAA', '/g/abc', '/g/', '/g/a%20b', `/g/${'x'.repeat(65)}`, '/g/abc/def', '/g/events/']) {
      app.queries.length = 0
      const response = await fetch(`${app.url}${path}`)
      expect(response.status, path).toBe(404)
      expect(await response.text(), path).toContain('data-page="missing"')
      if (['/g/a%20b', `/g/${'x'.repeat(65)}`].includes(path)) expect(app.queries, path).toEqual([])
    }
  })

  it('when a label holds markup, then the page shows it as text', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1, label: '<script>alert(1)</script> & "Bo"' })
    const html = await (await fetch(`${app.url}/g/${session.id}`)).text()
    expect(html).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Bo&quot;</h1>')
    expect(html.match(/<script/g)).toHaveLength(1)
  })

  it('when asked with HEAD, then the headers are the GET’s without a body', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const head = await fetch(`${app.url}/g/${session.id}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await head.text()).toBe('')
  })
})

describe('the pages under helmet’s Content-Security-Policy', () => {
  it('when served, then the only script is a served file, the policy is helmet’s (no upgrade over plain HTTP), and both files are cached for good', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const response = await fetch(`${app.url}/g/${session.id}`)
    const policy = response.headers.get('content-security-policy')!
    expect(policy).toContain("script-src 'self'")
    expect(policy).toContain("img-src 'self' data:")
    expect(policy).not.toContain('upgrade-insecure-requests')
    const html = await response.text()
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map(([, attributes]) => attributes)
    expect(scripts).toEqual([expect.stringMatching(/^ src="\/g\/assets\/gallery\.[0-9a-f]{12}\.js" defer$/)])
    expect(html).not.toMatch(/ on[a-z]+=/)

    for (const [, path, type] of [
      [null, html.match(/href="(\/g\/assets\/[^"]+\.css)"/)![1], 'text/css; charset=utf-8'],
      [null, html.match(/src="(\/g\/assets\/[^"]+\.js)"/)![1], 'text/javascript; charset=utf-8'],
    ] as const) {
      const asset = await fetch(`${app.url}${path}`)
      expect(asset.status).toBe(200)
      expect(asset.headers.get('content-type')).toBe(type)
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    }
    expect((await fetch(`${app.url}/g/assets/gallery.000000000000.js`)).status).toBe(404)
  })

  it('when the photos are on a CDN, then the pages’ policy lets their images (and their bytes, for sharing a file) come from it, and nothing else', async () => {
    const cdn = await startTestServer({ cdnUrl: 'https://cdn.example.net/photos', publicUrl: 'https://booth.example.com' })
    try {
      const { sets } = await seedEvent(cdn.orm)
      const session = await seedSession(cdn.orm, sets[0]!.id, { photos: 1 })
      const response = await fetch(`${cdn.url}/g/${session.id}`)
      const policy = response.headers.get('content-security-policy')!
      expect(policy).toContain("img-src 'self' data: https://cdn.example.net;")
      expect(policy).toContain("connect-src 'self' https://cdn.example.net")
      expect(policy).toContain("script-src 'self';")
      expect(policy).toContain('upgrade-insecure-requests')
      const html = await response.text()
      expect(html).toContain(`<img src="https://cdn.example.net/photos/${session.photos[0]!.storageKey}"`)
      expect(metaTags(html)['og:url']).toBe(`https://booth.example.com/g/${session.id}`)
    } finally {
      await cdn.stop()
    }
  })

  it('when a browser accepts gzip, then the page comes compressed', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 20 })
    const { headers, body } = await rawGet(`${app.url}/g/${session.id}`, { 'accept-encoding': 'gzip' })
    expect(headers['content-encoding']).toBe('gzip')
    expect(headers.vary).toBe('Accept-Encoding')
    const html = gunzipSync(body).toString('utf8')
    expect(html.match(/<li class="photo"/g)).toHaveLength(20)
    expect(body.length).toBeLessThan(html.length / 3)
  })
})

describe('GET /g/events/:slug', () => {
  it('when the event is public, then its page lists every set’s live sessions, newest first, each linking to its gallery page', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    const older = await seedSession(app.orm, sets[0]!.id, { photos: 2, label: 'Older', createdAt: new Date('2026-06-01T18:00:00Z') })
    const newer = await seedSession(app.orm, sets[0]!.id, { photos: 1, label: 'Newer', createdAt: new Date('2026-06-01T19:00:00Z') })
    await seedSession(app.orm, sets[1]!.id, { status: 'active' })
    const response = await fetch(`${app.url}/g/events/${event.slug}`)
    expect(response.status).toBe(200)
    const html = await response.text()
    expect(html).toContain('data-page="event"')
    expect(html).toContain(`data-event-id="${event.id}"`)
    expect(html).toContain('<h1>Test Event</h1>')
    // Each card's link is named by its visible text (WCAG 2.5.3): no aria-label to contradict it.
    const cards = [
      ...html.matchAll(
        /<li class="card"><a href="([^"]+)"><img src="([^"]+)"[^>]*?( loading="lazy")?[^>]*><span class="card-label">([^<]+)<\/span> <span class="card-meta">([^<]+)</g,
      ),
    ]
    expect(cards.map(([, href, src, lazy, label, meta]) => ({ href, src, lazy: Boolean(lazy), label, meta }))).toEqual([
      // The first row loads at once; seeded photos have no copies: the photo itself.
      {
        href: `${app.url}/g/${newer.id}`,
        src: `${app.url}/photos/${newer.photos[0]!.storageKey}`,
        lazy: false,
        label: 'Newer',
        meta: '1 photo',
      },
      {
        href: `${app.url}/g/${older.id}`,
        src: `${app.url}/photos/${older.photos[0]!.storageKey}`,
        lazy: false,
        label: 'Older',
        meta: '2 photos',
      },
    ])
    // A set with nothing live has no heading of its own.
    expect(html).not.toContain('Set 2')
    expect(metaTags(html)).toMatchObject({
      'og:image': `${app.url}/photos/${newer.photos[0]!.storageKey}`,
      'og:url': `${app.url}/g/events/${event.slug}`,
    })
  })

  it('when the event is private or unknown, then the not-found page answers 404', async () => {
    const { event, sets } = await seedEvent(app.orm, { isPrivate: true })
    await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    for (const slug of [event.slug, 'no-such-event', 'bad%20slug']) {
      const response = await fetch(`${app.url}/g/events/${slug}`)
      expect(response.status, slug).toBe(404)
      expect(await response.text(), slug).toContain('<h1>We can’t find this event</h1>')
    }
  })

  it('when the event has nothing live yet, then the page says so', async () => {
    const { event } = await seedEvent(app.orm)
    const html = await (await fetch(`${app.url}/g/events/${event.slug}`)).text()
    expect(html).toContain('No photos yet')
  })
})

describe('GALLERY_URL set to an operator’s own front end', () => {
  it('when set, then the links sent point there and the service’s pages still answer', async () => {
    const own = await startTestServer({ galleryUrl: 'https://photos.example.com/p' })
    try {
      const gallery = await makeLiveGallery(own)
      const [message] = await own.orm.em
        .fork()
        .execute<{ link: string }[]>('select link from outbox_message where session_id = ? limit 1', [gallery.sessionId])
      expect(message!.link).toBe(`https://photos.example.com/p/${gallery.sessionId}`)
      expect((await fetch(`${own.url}/g/${gallery.sessionId}`)).status).toBe(200)
    } finally {
      await own.stop()
    }
  })
})

/** `<meta property|name="…" content="…">` as a map. */
function metaTags(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map(([, name, content]) => [name!, content!]),
  )
}

/** A GET whose body comes as sent (fetch would decode it). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
      .on('error', reject)
      .end()
  })
}
