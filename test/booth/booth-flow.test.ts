import { createClient, type PhotoBoothClient } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startFakeS3, type FakeS3 } from '../support/s3.js'
import { until } from '../support/until.js'
import { unzip } from '../support/unzip.js'

type Setup = { app: TestServer; kiosk: PhotoBoothClient; booth: PhotoBoothClient; s3?: FakeS3 }

const storages = [
  ['the local bucket', async () => ({ s3: undefined, overrides: {} })],
  [
    'S3 (s3rver on loopback)',
    async () => {
      const s3 = await startFakeS3()
      return { s3, overrides: { storage: s3.settings, cdnUrl: `${s3.endpoint}/photos` } }
    },
  ],
] as const

describe.each(storages)('the booth flow on %s', (_name, prepare) => {
  let setup: Setup
  beforeAll(async () => {
    const { s3, overrides } = await prepare()
    const app = await startTestServer(overrides)
    setup = {
      app,
      s3,
      kiosk: createClient({ baseUrl: app.url }),
      booth: createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) }),
    }
  })
  afterAll(async () => {
    await setup?.app.stop()
    await setup?.s3?.close()
  })

  it('when a kiosk registers guests and the booth shoots, uploads and completes, then the gallery shows the photos in order', async () => {
    const { app, kiosk, booth } = setup
    const { event, sets } = await seedEvent(app.orm, { isPrivate: true })

    // The booth sees the (private) event and the set it works.
    const { events } = await booth.booth.listEvents()
    expect(events.find((e) => e.id === event.id)).toMatchObject({ slug: event.slug, isPrivate: true, sets: [{ id: sets[0]!.id }] })

    // A kiosk registers two groups; the queue lists them oldest first with the guests' names.
    const first = await kiosk.kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: {
        guests: [
          { name: 'Ada King Lovelace', email: 'ada@example.org' },
          { name: 'Grace', phone: '+1 415 555 2671' },
        ],
      },
    })
    const second = await kiosk.kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Alan', email: 'alan@example.org' }] },
    })
    const queue = await booth.booth.listQueue({ setId: sets[0]!.id })
    expect(queue.set).toEqual(sets[0])
    expect(queue.sessions.map((s) => s.id)).toEqual([first.id, second.id])
    expect(queue.sessions[0]!.guests).toEqual([
      { name: 'Ada King Lovelace', firstName: 'Ada', lastName: 'King Lovelace' },
      { name: 'Grace', firstName: 'Grace', lastName: '' },
    ])

    // Three upload targets under the session's prefix, bound to image/jpeg.
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: first.id }, body: { count: 3 } })
    expect(uploads).toHaveLength(3)
    for (const upload of uploads) {
      expect(upload.key.startsWith(`sessions/${first.id}/`)).toBe(true)
      expect(upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'image/jpeg' } })
      expect(upload.expiresAt).toBeGreaterThan(Date.now())
    }

    // The booth PUTs real JPEGs of different sizes straight to storage.
    const sizes = [
      { width: 64, height: 48 },
      { width: 30, height: 40 },
      { width: 50, height: 50 },
    ]
    const images = sizes.map((size, index) => makeJpeg(size.width, size.height, index))
    for (const [index, upload] of uploads.entries()) {
      const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[index] })
      expect(put.status).toBe(200)
    }

    // Completed in a chosen gallery order.
    const order = [2, 0, 1]
    const completed = await booth.booth.complete({ params: { sessionId: first.id }, body: { photos: order.map((i) => uploads[i]!.key) } })
    expect(completed).toMatchObject({ id: first.id, status: 'completed', galleryUrl: `${app.config.galleryUrl}/${first.id}` })
    expect(completed.photos.map(({ width, height }) => ({ width, height }))).toEqual(order.map((i) => sizes[i]))

    // The gallery is live: photos in that order, their dimensions read from the JPEGs, URLs on the CDN
    // base: each photo's full-size copy (its display copies may already be listed too).
    const gallery = await kiosk.gallery.getGallery({ sessionId: first.id })
    expect(gallery.photos.map(({ copies: _copies, ...photo }) => photo)).toEqual(completed.photos)
    expect(gallery.photos.map((p) => p.url)).toEqual(
      completed.photos.map((p) => `${app.config.cdnUrl}/sessions/${first.id}/copies/${p.id}.jpg`),
    )
    // On the local bucket a photo URL asked for before the copies worker makes its copy at once; on S3
    // (the bucket's own domain) it answers once the worker has stored it, seconds after completion.
    if (setup.s3)
      await until(
        () => kiosk.gallery.getGallery({ sessionId: first.id }),
        (live) => live.photos.every((photo) => photo.copies),
      )
    const served = await fetch(gallery.photos[0]!.url)
    expect(served.status).toBe(200)
    // These JPEGs carry no metadata: the full-size copy is the upload, byte for byte.
    expect(Buffer.from(await served.arrayBuffer()).equals(images[2]!)).toBe(true)

    // Guests download a photo and the whole zip, streamed from this storage.
    const download = await fetch(`${app.url}/gallery/${first.id}/photos/${gallery.photos[1]!.id}/download`)
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="Ada & Grace 2.jpg"')
    expect(Buffer.from(await download.arrayBuffer()).equals(images[order[1]!]!)).toBe(true)
    const zipResponse = await fetch(`${app.url}/gallery/${first.id}/zip`)
    const zip = Buffer.from(await zipResponse.arrayBuffer())
    expect(Number(zipResponse.headers.get('content-length'))).toBe(zip.length)
    const entries = await unzip(zip)
    expect(entries.map((entry) => entry.name)).toEqual(['Ada & Grace 1.jpg', 'Ada & Grace 2.jpg', 'Ada & Grace 3.jpg'])
    entries.forEach((entry, index) => expect(entry.bytes.equals(images[order[index]!]!)).toBe(true))

    // The session left the queue; the other one is still waiting.
    const after = await booth.booth.listQueue({ setId: sets[0]!.id })
    expect(after.sessions.map((s) => s.id)).toEqual([second.id])

    // One gallery link per guest per channel was queued with the completion.
    const messages = await app.orm.em
      .fork()
      .execute<{ channel: string; recipient: string; link: string; status: string }[]>(
        'select channel, recipient, link, status from outbox_message where session_id = ? order by recipient',
        [first.id],
      )
    expect(messages).toEqual([
      { channel: 'sms', recipient: '+14155552671', link: completed.galleryUrl, status: 'pending' },
      { channel: 'email', recipient: 'ada@example.org', link: completed.galleryUrl, status: 'pending' },
    ])
  })
})
