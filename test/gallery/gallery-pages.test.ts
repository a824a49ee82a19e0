import { request } from 'node:http'
import { gunzipSync } from 'node:zlib'

import { createClient } from '@photobooth/sdk'
import { describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, seedEvent, seedSession, startTestServer, withoutIds, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'

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
  it('when the gallery is live, then the page lays its photos out in order at their shapes, each with its download, and the zip with its size', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 3, label: 'Zoë & Ann' })
    const html = await (await fetch(`${app.url}/g/${session.id}`)).text()

    // Rows from before copies existed: no copy to show, so a placeholder of the photo's shape, never its full-size file.
    const tiles = [
      ...html.matchAll(
        /<li class="tile" style="--r:(\d+)\/(\d+);[^"]*"><a class="photo-open" href="([^"]+)" data-index="(\d)" data-download="([^"]+)"><span class="placeholder" role="img" aria-label="([^"]+)">/g,
      ),
    ]
    expect(
      tiles.map(([, width, height, href, index, download, name]) => ({
        width: Number(width),
        height: Number(height),
        href,
        index,
        download,
        name,
      })),
    ).toEqual(
      session.photos.map((photo, i) => ({
        width: photo.width,
        height: photo.height,
        href: `/gallery/${session.id}/photos/${photo.id}/download`,
        index: String(i),
        download: `/gallery/${session.id}/photos/${photo.id}/download`,
        name: `Photo ${i + 1} of 3, Zoë &amp; Ann at Test Event (shown once downloaded)`,
      })),
    )
    for (const photo of session.photos) expect(html).not.toContain(photo.storageKey)
    // seedSession records 1,000 bytes per photo.
    expect(html).toContain(
      `<a class="round primary" href="/gallery/${session.id}/zip" download data-zip aria-label="Download all 3 photos (3 KB, zip)">`,
    )
  })

  it('when its copies are made, then each photo is shown from them with sizes for its place in the rows, and no full-size URL is on the page', async () => {
    const gallery = await makeLiveGallery(app, { images: [makeJpeg(1500, 1000, 1), makeJpeg(1000, 1500, 2), makeJpeg(1200, 1200, 3)] })
    await copiesSettled(app, gallery.sessionId)
    const read = await (await fetch(`${app.url}/gallery/${gallery.sessionId}`)).json()
    const response = await fetch(`${app.url}/g/${gallery.sessionId}`)
    expect(response.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600')
    const html = await response.text()
    const images = [
      ...html.matchAll(
        /<img src="([^"]+)" srcset="([^"]+)" sizes="([^"]+)"( fetchpriority="high")? decoding="async" width="(\d+)" height="(\d+)"/g,
      ),
    ]
    expect(images).toHaveLength(3)
    // The first row first, at high priority.
    expect(images[0]![4]).toBe(' fetchpriority="high"')
    for (const [i, [, src, srcset, sizes, , width, height]] of images.entries()) {
      const photo = read.photos[i]
      expect(srcset).toBe(photo.copies.map((copy: { url: string; width: number }) => `${copy.url} ${copy.width}w`).join(', '))
      expect(src).toBe(photo.copies[1].url)
      expect([Number(width), Number(height)]).toEqual([photo.width, photo.height])
      // On a phone its share of 100vw less the margins and its row's gaps; then on wider screens; then on the widest page.
      expect(sizes).toMatch(
        /^\(max-width: 639\.98px\) calc\([\d.]+vw - [\d.]+px\), \(max-width: 1152px\) calc\([\d.]+vw - [\d.]+px\), \d+px$/,
      )
      expect(html).not.toContain(photo.url)
    }
  })

  it('when the photos were uploaded, then the download link answers an attachment and "Download all" names the zip of the recorded sizes', async () => {
    const gallery = await makeLiveGallery(app)
    await copiesSettled(app, gallery.sessionId)
    const html = await (await fetch(`${app.url}/g/${gallery.sessionId}`)).text()
    // These JPEGs carry no metadata: their full-size copies are the uploads, byte for byte.
    const total = gallery.photos.reduce((sum, photo) => sum + photo.bytes.length, 0)
    expect(html).toContain(`aria-label="Download all 3 photos (${Math.max(1, Math.round(total / 1000))} KB, zip)"`)
    const [href] = html.match(/\/gallery\/[^"]+\/download/)!
    const download = await fetch(`${app.url}${href}`)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="Ada Lovelace 1\.jpg"/)
    expect(Buffer.from(await download.arrayBuffer()).equals(gallery.photos[0]!.bytes)).toBe(true)
  })

  it('when a link is shared before its preview is made, then the preview tags name the service’s own card, never a photo, and search engines are kept out', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 2, label: 'Ada' })
    const html = await (await fetch(`${app.url}/g/${session.id}`)).text()
    const tags = metaTags(html)
    expect(tags).toMatchObject({
      'og:title': 'Ada · Test Event',
      'og:description': '2 photos from the photo booth at Test Event',
      'og:url': `${app.url}/g/${session.id}`,
      'og:type': 'website',
      'og:image:type': 'image/jpeg',
      'og:image:width': '1200',
      'og:image:height': '630',
      'twitter:card': 'summary_large_image',
      robots: 'noindex',
    })
    expect(tags['og:image']).toMatch(new RegExp(`^${app.url}/g/assets/card\\.[0-9a-f]{12}\\.jpg$`))
    expect(tags['twitter:image']).toBe(tags['og:image'])
    const card = await fetch(tags['og:image']!)
    expect(card.headers.get('content-type')).toBe('image/jpeg')
    expect(card.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect((await card.arrayBuffer()).byteLength).toBeLessThanOrEqual(300_000)
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
    // In <head>, not deferred: it says what the browser can do before the first paint (nothing appears later and moves the page).
    expect(scripts).toEqual([expect.stringMatching(/^ src="\/g\/assets\/gallery\.[0-9a-f]{12}\.js"$/)])
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
      expect(metaTags(html)['og:url']).toBe(`https://booth.example.com/g/${session.id}`)
      expect(metaTags(html)['og:image']).toMatch(/^https:\/\/booth\.example\.com\/g\/assets\/card\./)
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
    expect(html.match(/<li class="tile"/g)).toHaveLength(20)
    expect(body.length).toBeLessThan(html.length / 3)
  })
})

describe('GET /g/events/:slug', () => {
  it('when the event is public, then its page lists every set’s live sessions, newest first, each a card linking to its gallery page', async () => {
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
        /<li class="tile card" style="--r:(\d+)\/(\d+);[^"]*"><a href="([^"]+)"><span class="frame">(<[^>]+>)[\s\S]*?<\/span><span class="card-label">([^<]+)<\/span> <span class="card-meta">([^<]+)</g,
      ),
    ]
    expect(
      cards.map(([, width, height, href, picture, label, meta]) => ({ shape: `${width}/${height}`, href, picture, label, meta })),
    ).toEqual([
      // Seeded photos have no copies (as photos from before copies existed): a placeholder, never the photo's file; portraits make square cards.
      { shape: '1200/1200', href: `${app.url}/g/${newer.id}`, picture: '<span class="placeholder">', label: 'Newer', meta: '1 photo' },
      { shape: '1200/1200', href: `${app.url}/g/${older.id}`, picture: '<span class="placeholder">', label: 'Older', meta: '2 photos' },
    ])
    // A set with nothing live has no heading of its own.
    expect(html).not.toContain('Set 2')
    expect(metaTags(html)['og:url']).toBe(`${app.url}/g/events/${event.slug}`)
    expect(metaTags(html)['og:image']).toMatch(/\/g\/assets\/card\.[0-9a-f]{12}\.jpg$/)
    // Every set's galleries fit one page: no link to more.
    expect(html).not.toContain('data-more')
  })

  it('when a set holds more galleries than a page, then a link leads to its next page, which lists the next ones of that set alone, to the last', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    const minute = (n: number) => new Date(Date.UTC(2026, 5, 1, 18, n))
    const first = []
    for (let i = 0; i < 26; i++)
      first.push(await seedSession(app.orm, sets[0]!.id, { photos: 1, label: `Guest ${i}`, createdAt: minute(i) }))
    const second = await seedSession(app.orm, sets[1]!.id, { photos: 1, label: 'Garden', createdAt: minute(0) })
    const listed = (html: string) => [...html.matchAll(/<a href="[^"]+\/g\/([^"]+)"><span class="frame">/g)].map(([, id]) => id)
    const moreLink = (html: string) => html.match(/<a class="more" href="([^"]+)" data-more="([^"]+)">([^<]+)<\/a>/)

    const page1 = await (await fetch(`${app.url}/g/events/${event.slug}`)).text()
    const newestFirst = first.map((session) => session.id).reverse()
    expect(listed(page1)).toEqual([...newestFirst.slice(0, 12), second.id])
    const [, href2, setId, text] = moreLink(page1)!
    expect([setId, text]).toEqual([sets[0]!.id, 'More from Set 1'])

    const page2 = await fetch(href2!.replaceAll('&amp;', '&'))
    expect(page2.status).toBe(200)
    const html2 = await page2.text()
    expect(listed(html2)).toEqual(newestFirst.slice(12, 24))
    expect(html2).toContain('<h1>More galleries</h1>')
    const html3 = await (await fetch(moreLink(html2)![1]!.replaceAll('&amp;', '&'))).text()
    expect(listed(html3)).toEqual(newestFirst.slice(24))
    expect(moreLink(html3)).toBeNull()

    for (const cursor of ['nonsense', Buffer.from('["a",1,"b"]').toString('base64url'), 'x'.repeat(201)]) {
      const wrong = await fetch(`${app.url}/g/events/${event.slug}?cursor=${cursor}`)
      expect(wrong.status, cursor).toBe(404)
      expect(await wrong.text()).toContain('<h1>We can’t find this event</h1>')
    }
    // A parameter a messenger adds to the link changes nothing.
    const tagged = await fetch(`${app.url}/g/events/${event.slug}?fbclid=IwAR0abc`)
    expect(tagged.status).toBe(200)
    expect(listed(await tagged.text())).toEqual(listed(page1))
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

describe('GET /robots.txt', () => {
  it('when a crawler asks, then nothing is for search engines, while link previews may read the guests’ pages and their images', async () => {
    const response = await fetch(`${app.url}/robots.txt`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const groups = (await response.text()).split(/\n\n/).map((group) => group.split('\n').filter((line) => line && !line.startsWith('#')))
    expect(groups.at(-1)).toEqual(['User-agent: *', 'Disallow: /', ''].filter(Boolean))
    expect(groups[0]).toEqual(
      expect.arrayContaining(['User-agent: facebookexternalhit', 'User-agent: Twitterbot', 'Allow: /g/', 'Allow: /photos/', 'Disallow: /']),
    )
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
