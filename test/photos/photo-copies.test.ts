import { createClient } from '@photobooth/sdk'
import type { Settings } from '@photobooth/server/config'
import { loadSettings } from '@photobooth/server/config'
import { createLogger } from '@photobooth/server/logger'
import { makeLegacyCopies } from '@photobooth/server/modules/photos/make-legacy-copies'
import exifr from 'exifr'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CAMERA_TAGS, makeCameraJpeg } from '../support/camera.js'
import { scratchDatabases } from '../support/databases.js'
import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startS3TestServer, type FakeS3, type S3TestServer } from '../support/s3.js'
import { signedInStaff, staffFetch } from '../support/staff.js'
import { unzip } from '../support/unzip.js'

type Copy = { url: string; width: number; height: number; type: string }
type GalleryPhoto = { id: string; url: string; width: number; height: number; copies?: Copy[] }
type GalleryBody = { photos: GalleryPhoto[]; preview?: Copy }

const COPIES = loadSettings({}).copies
/** Copies made only when a download asks for one: what guests get before the worker has come by. */
const WORKER_OFF: Partial<Settings> = { copies: { ...COPIES, work: false } }

let app: TestServer
/** Camera photos (5184×3456, GPS, make, model, serial): one upright, one turned by EXIF. */
let upright: Buffer
let turned: Buffer

beforeAll(async () => {
  ;[upright, turned, app] = await Promise.all([makeCameraJpeg({ seed: 1 }), makeCameraJpeg({ seed: 2, orientation: 6 }), startTestServer()])
})
afterAll(() => app?.stop())

const gallery = async (server: TestServer, sessionId: string) =>
  (await (await fetch(`${server.url}/gallery/${sessionId}`)).json()) as GalleryBody
const bytesOf = async (url: string) => {
  const response = await fetch(url)
  expect(response.status, url).toBe(200)
  return { bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers }
}

/** What an EXIF reader finds of the camera's tags: none may reach a guest or the public. */
async function cameraTags(bytes: Buffer) {
  const tags = (await exifr
    .parse(bytes, { gps: true, tiff: true, exif: true, xmp: true, iptc: true, mergeOutput: true })
    .catch(() => undefined)) as Record<string, unknown> | undefined
  const names = ['latitude', 'longitude', 'GPSLatitude', 'Make', 'Model', 'BodySerialNumber', 'LensModel', 'Software', 'Artist']
  return Object.fromEntries(names.filter((name) => tags?.[name] !== undefined).map((name) => [name, tags![name]]))
}

/** A small version of the pixels as shown upright (EXIF applied), for comparing what a photo shows. */
const thumbnail = (bytes: Buffer) => sharp(bytes).rotate().resize(32, 32, { fit: 'fill' }).removeAlpha().raw().toBuffer()
const meanDifference = (a: Buffer, b: Buffer) => a.reduce((sum, value, index) => sum + Math.abs(value - b[index]!), 0) / a.length

describe('the copies of a camera photo', () => {
  it('when a session of camera photos completes, then each gets upright WebP copies of 480, 720, 960 and 1600 px and the session a 1200×630 preview, none with metadata, cached for a year', async () => {
    const live = await makeLiveGallery(app, { images: [upright, turned] })
    await copiesSettled(app, live.sessionId)
    const body = await gallery(app, live.sessionId)

    const [first, second] = body.photos
    expect(first).toMatchObject({ width: 5184, height: 3456 })
    expect(second).toMatchObject({ width: 3456, height: 5184 })
    // 480, 720, 960 and 1600 px on the long side, the short side in the photo's proportion (within a pixel).
    for (const photo of [first!, second!]) {
      expect(photo.copies!.map((copy) => [Math.max(copy.width, copy.height), copy.type])).toEqual([
        [480, 'image/webp'],
        [720, 'image/webp'],
        [960, 'image/webp'],
        [1600, 'image/webp'],
      ])
      for (const copy of photo.copies!) expect(Math.abs(copy.width / copy.height - photo.width / photo.height)).toBeLessThan(0.003)
    }
    expect(second!.copies!.every((copy) => copy.height > copy.width)).toBe(true)
    for (const copy of [...first!.copies!, ...second!.copies!]) {
      const { bytes, headers } = await bytesOf(copy.url)
      expect(headers.get('content-type')).toBe('image/webp')
      expect(headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      const meta = await sharp(bytes).metadata()
      expect({ format: meta.format, width: meta.width, height: meta.height, exif: meta.exif, orientation: meta.orientation }).toEqual({
        format: 'webp',
        width: copy.width,
        height: copy.height,
        exif: undefined,
        orientation: undefined,
      })
      expect(await cameraTags(bytes)).toEqual({})
    }
    // The turned photo's copies show what the camera showed, upright.
    expect(meanDifference(await thumbnail((await bytesOf(second!.copies![0]!.url)).bytes), await thumbnail(turned))).toBeLessThan(6)

    expect(body.preview).toEqual({ url: expect.stringMatching(/\/copies\/preview\.jpg$/), width: 1200, height: 630, type: 'image/jpeg' })
    const preview = await bytesOf(body.preview!.url)
    expect(preview.bytes.length).toBeLessThanOrEqual(300 * 1024)
    expect(await sharp(preview.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 1200, height: 630 })
    expect(await cameraTags(preview.bytes)).toEqual({})
  })

  it("when a guest gets a photo before the worker came by (URL, download, zip), then it shows upright, holds no GPS, camera or other tag but its capture time, and keeps the camera's compressed pixels", async () => {
    const server = await startTestServer(WORKER_OFF)
    try {
      const live = await makeLiveGallery(server, { images: [upright, turned], names: ['Ada Lovelace'] })
      const body = await gallery(server, live.sessionId)
      expect(body.photos.map((photo) => photo.copies)).toEqual([undefined, undefined])
      const photoUrl = (await bytesOf(body.photos[1]!.url)).bytes
      const download = (await bytesOf(`${server.url}/gallery/${live.sessionId}/photos/${body.photos[1]!.id}/download`)).bytes
      const zip = await unzip((await bytesOf(`${server.url}/gallery/${live.sessionId}/zip`)).bytes)
      expect(zip.map((entry) => entry.name)).toEqual(['Ada Lovelace 1.jpg', 'Ada Lovelace 2.jpg'])

      for (const served of [photoUrl, download, zip[1]!.bytes]) {
        expect(served.equals(photoUrl)).toBe(true)
        expect(await cameraTags(served)).toEqual({})
        // The camera's pixels as they were, turned by the one tag every current viewer honours: nothing re-encoded.
        const meta = await sharp(served).metadata()
        expect({ width: meta.width, height: meta.height, orientation: meta.orientation, autoOrient: meta.autoOrient }).toEqual({
          width: 5184,
          height: 3456,
          orientation: 6,
          autoOrient: { width: 3456, height: 5184 },
        })
        expect((await sharp(served).raw().toBuffer()).equals(await sharp(turned).raw().toBuffer())).toBe(true)
        expect(served.length).toBeLessThan(turned.length)
        // When it was taken, in the camera's zone: saved to a phone, it sorts among that evening's photos.
        expect(await exifr.parse(served, { reviveValues: false, translateValues: false })).toEqual({
          Orientation: 6,
          DateTimeOriginal: CAMERA_TAGS.IFD2.DateTimeOriginal,
          OffsetTimeOriginal: CAMERA_TAGS.IFD2.OffsetTimeOriginal,
        })
      }
      // Upright already: the same compressed pixels, only the metadata left out.
      const first = zip[0]!.bytes
      expect(await cameraTags(first)).toEqual({})
      expect(first.length).toBeLessThan(upright.length)
      expect((await sharp(first).raw().toBuffer()).equals(await sharp(upright).raw().toBuffer())).toBe(true)
      // The originals themselves do carry the tags: the checks above can fail.
      expect(await cameraTags(upright)).toMatchObject({ Make: CAMERA_TAGS.IFD0.Make, latitude: expect.any(Number) })
    } finally {
      await server.stop()
    }
  })
})

describe('uploads the copies cannot be made from', () => {
  async function cases() {
    const scene = await makeCameraJpeg({ width: 1200, height: 800, seed: 5, tags: false })
    const progressive = await sharp(scene).jpeg({ progressive: true }).toBuffer()
    const cmyk = await sharp(scene).toColourspace('cmyk').jpeg().toBuffer()
    const truncated = upright.subarray(0, Math.floor(upright.length * 0.6))
    const hugeExif = await sharp(scene)
      .jpeg()
      .withExif({ IFD0: { Make: 'Canon', ImageDescription: 'x'.repeat(60_000) }, IFD3: CAMERA_TAGS.IFD3 })
      .toBuffer()
    // 10,000 × 10,000: a frame larger than the service decodes (a decompression bomb has such a header).
    const huge = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#7a7' } })
      .jpeg({ quality: 50 })
      .toBuffer()
    // A JPEG's header, then what is not a JPEG at all: it has a size, and nothing can be decoded.
    const header = scene.subarray(0, scene.indexOf(Buffer.from([0xff, 0xda])))
    const notJpeg = Buffer.concat([
      header,
      Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]),
      Buffer.from('%PDF-1.7 not a photo at all'.repeat(500)),
    ])
    return { progressive, cmyk, truncated, hugeExif, huge, notJpeg }
  }

  it('when uploads are progressive, CMYK, truncated, with a 60 KB EXIF, 100 megapixels or not a JPEG inside, then the session completes, the gallery shows what can be shown, nothing is tried twice, and staff see which failed and why', async () => {
    const uploads = await cases()
    const names = Object.keys(uploads)
    const live = await makeLiveGallery(app, { images: Object.values(uploads) })
    await copiesSettled(app, live.sessionId)

    const rows = await app.orm.em
      .fork()
      .execute<{ position: number; image_status: string; image_attempts: number; image_error: string | null }[]>(
        'select position, image_status, image_attempts, image_error from photo where session_id = ? order by position',
        [live.sessionId],
      )
    const outcome = Object.fromEntries(rows.map((row) => [names[row.position - 1], row.image_status]))
    expect(outcome).toEqual({
      progressive: 'ready',
      cmyk: 'ready',
      truncated: 'failed',
      hugeExif: 'ready',
      huge: 'failed',
      notJpeg: 'failed',
    })
    expect(rows.map((row) => row.image_attempts)).toEqual(rows.map(() => 1))

    const body = await gallery(app, live.sessionId)
    expect(body.photos).toHaveLength(names.length)
    for (const [index, photo] of body.photos.entries()) {
      // Every photo keeps its full-size copy: stripped of metadata even where nothing could be decoded.
      const { bytes } = await bytesOf(photo.url)
      expect(await cameraTags(bytes), names[index]).toEqual({})
      // Display copies of all but the frame too large to decode: a cut-short upload shows what it holds.
      expect(Boolean(photo.copies), names[index]).toBe(names[index] !== 'huge')
    }
    // A CMYK upload's copies are sRGB.
    expect((await sharp((await bytesOf(body.photos[1]!.copies![0]!.url)).bytes).metadata()).space).toBe('srgb')

    const staff = await signedInStaff(app)
    const session = await (await staffFetch(app, staff, `/staff/sessions/${live.sessionId}`)).json()
    expect(session.copies).toEqual({
      queued: 0,
      ready: 3,
      legacy: 0,
      failed: [
        { photoId: body.photos[2]!.id, position: 3, reason: expect.stringMatching(/ends before the photo does/) },
        { photoId: body.photos[4]!.id, position: 5, reason: expect.stringMatching(/more pixels than the service decodes/) },
        { photoId: body.photos[5]!.id, position: 6, reason: expect.stringMatching(/ends before the photo does/) },
      ],
    })
  }, 60_000)

  it('when a file is not a JPEG at all, then completion refuses it as before (422) and writes nothing', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#123' } })
      .png({ compressionLevel: 0 })
      .toBuffer()
    await expect(makeLiveGallery(app, { images: [png] })).rejects.toMatchObject({ status: 422, data: { notJpeg: [expect.any(String)] } })
  })
})

describe('the copies job', () => {
  it('when a session completes with no worker running, then its links wait for the copies; a later start makes them once and releases the links', async () => {
    const databases = scratchDatabases('copies_restart')
    const databaseUrl = await databases.create()
    const first = await startTestServer({ databaseUrl, ...WORKER_OFF })
    let second: TestServer | undefined
    try {
      const live = await makeLiveGallery(first, { images: [makeJpeg(40, 30, 1), makeJpeg(30, 40, 2)], names: ['Ada Lovelace'] })
      const held = (server = first) =>
        server.orm.em
          .fork()
          .execute<{ held_ms: number }[]>(
            `select extract(epoch from (next_attempt_at - now())) * 1000 as held_ms from outbox_message where session_id = ?`,
            [live.sessionId],
          )
      // Held for the copies, up to COPIES_LINK_WAIT_MS (30 s) after completion.
      expect((await held()).every((row) => row.held_ms > 25_000 && row.held_ms <= 30_000)).toBe(true)
      await first.stop()

      second = await startTestServer({ databaseUrl })
      await copiesSettled(second, live.sessionId)
      const [session] = await second.orm.em
        .fork()
        .execute<{ images_settled: number; images_ready: boolean }[]>(
          'select images_settled, images_ready_at is not null as images_ready from session where id = ?',
          [live.sessionId],
        )
      expect(session).toEqual({ images_settled: 2, images_ready: true })
      const photos = await second.orm.em
        .fork()
        .execute<{ image_status: string; image_attempts: number }[]>(
          'select image_status, image_attempts from photo where session_id = ?',
          [live.sessionId],
        )
      expect(photos).toEqual([
        { image_status: 'ready', image_attempts: 1 },
        { image_status: 'ready', image_attempts: 1 },
      ])
      // Released: due now, not at the end of the wait.
      expect((await held(second)).every((row) => row.held_ms <= 0)).toBe(true)
    } finally {
      await first.stop().catch(() => {})
      await second?.stop()
      await databases.dropAll()
    }
  })

  it('when photos were completed before copies existed, then they are served as they were, and make-copies makes theirs once, resumably', async () => {
    const databases = scratchDatabases('copies_legacy')
    const server = await startTestServer({ databaseUrl: await databases.create(), ...WORKER_OFF })
    try {
      const live = await makeLiveGallery(server, { images: [makeJpeg(40, 30, 1), makeJpeg(30, 40, 2)] })
      await server.orm.em.fork().execute(`update photo set image_status = 'legacy' where session_id = ?`, [live.sessionId])
      const before = await gallery(server, live.sessionId)
      expect(before.photos.map((photo) => new URL(photo.url).pathname)).toEqual(
        (
          await server.orm.em
            .fork()
            .execute<{ storage_key: string }[]>('select storage_key from photo where session_id = ? order by position', [live.sessionId])
        ).map((row) => `/photos/${row.storage_key}`),
      )

      const storage = server.config.storage
      if (storage.kind !== 'local') throw new Error('the test server has a local bucket')
      const { createLocalStorage } = await import('@photobooth/server/modules/storage/local-storage')
      const bucket = createLocalStorage({ root: storage.root, publicUrl: server.url, secret: storage.secret })
      const seen: number[] = []
      const done = await makeLegacyCopies(
        { orm: server.orm, storage: bucket, logger: createLogger({ silent: true }), settings: COPIES.worker },
        (counts) => seen.push(counts.queued),
      )
      expect(done).toMatchObject({ legacy: 0, queued: 0, failed: 0 })
      expect(seen.at(-1)).toBe(0)
      const after = await gallery(server, live.sessionId)
      expect(after.photos.map((photo) => photo.copies?.length)).toEqual([1, 1])
      expect(after.photos.map((photo) => new URL(photo.url).pathname)).toEqual(
        after.photos.map((photo) => `/photos/sessions/${live.sessionId}/copies/${photo.id}.jpg`),
      )
      // A second run finds nothing to do.
      const again = await makeLegacyCopies(
        { orm: server.orm, storage: bucket, logger: createLogger({ silent: true }), settings: COPIES.worker },
        () => {},
      )
      expect(again).toEqual(done)
    } finally {
      await server.stop()
      await databases.dropAll()
    }
  })

  it('when a session of 12 photos is zipped, then the entries are dated with its completion and named 01 to 12, in gallery order', async () => {
    const images = Array.from({ length: 12 }, (_, index) => makeJpeg(20 + index, 16, index))
    const completedAt = Date.now()
    const live = await makeLiveGallery(app, { images, names: ['Ada Lovelace'] })
    const entries = await unzip((await bytesOf(`${app.url}/gallery/${live.sessionId}/zip`)).bytes)
    expect(entries.map((entry) => entry.name)).toEqual(images.map((_, index) => `Ada Lovelace ${String(index + 1).padStart(2, '0')}.jpg`))
    for (const entry of entries) expect(Math.abs(entry.modified.getTime() - completedAt)).toBeLessThan(5_000)
    entries.forEach((entry, index) => expect(entry.bytes.equals(images[index]!)).toBe(true))
    // Opened on a phone in another zone, the photos keep their moment: the time travels in UTC
    // (Info-ZIP's extended timestamp), not only as the zip's zoneless DOS time.
    const zone = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      const elsewhere = await unzip((await bytesOf(`${app.url}/gallery/${live.sessionId}/zip`)).bytes)
      for (const entry of elsewhere) expect(Math.abs(entry.modified.getTime() - completedAt)).toBeLessThan(5_000)
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
    // One photo's download keeps the spec's name, unpadded.
    const download = await fetch(`${app.url}/gallery/${live.sessionId}/photos/${live.photos[0]!.id}/download`)
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="Ada Lovelace 1.jpg"')
  })

  it('when a session is deleted, then its copies go with its uploads', async () => {
    const live = await makeLiveGallery(app)
    await copiesSettled(app, live.sessionId)
    const body = await gallery(app, live.sessionId)
    const copies = [...body.photos.flatMap((photo) => [photo.url, ...(photo.copies ?? []).map((copy) => copy.url)]), body.preview!.url]
    expect(copies.length).toBeGreaterThanOrEqual(7)
    for (const url of copies) expect((await fetch(url)).status).toBe(200)
    const staff = await signedInStaff(app)
    expect((await staffFetch(app, staff, `/staff/sessions/${live.sessionId}`, { method: 'DELETE' })).status).toBe(200)
    for (const url of copies) expect((await fetch(url)).status, url).toBe(404)
  })
})

describe('copies on S3 (s3rver)', () => {
  let s3: FakeS3
  let onS3: TestServer
  let server: S3TestServer | undefined
  beforeAll(async () => {
    server = await startS3TestServer('copies_s3')
    ;({ s3, app: onS3 } = server)
  })
  afterAll(() => server?.stop())

  it('when a camera photo completes on S3, then its copies are stored under the session with their type and a year of immutable caching, and hold no tag', async () => {
    const live = await makeLiveGallery(onS3, { images: [turned] })
    await copiesSettled(onS3, live.sessionId)
    const body = await gallery(onS3, live.sessionId)
    const [photo] = body.photos
    expect(photo!.url).toBe(`${s3.endpoint}/photos/sessions/${live.sessionId}/copies/${photo!.id}.jpg`)
    for (const [url, type] of [
      [photo!.url, 'image/jpeg'],
      ...photo!.copies!.map((copy) => [copy.url, 'image/webp']),
      [body.preview!.url, 'image/jpeg'],
    ] as const) {
      const { bytes, headers } = await bytesOf(url)
      expect(headers.get('content-type'), url).toBe(type)
      expect(headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable')
      expect(await cameraTags(bytes), url).toEqual({})
    }
    // The download is the same full-size copy.
    const download = (await bytesOf(`${onS3.url}/gallery/${live.sessionId}/photos/${photo!.id}/download`)).bytes
    expect(download.equals((await bytesOf(photo!.url)).bytes)).toBe(true)
  })
})

describe('the pages', () => {
  it('when a session is completed and its copies are not made yet, then its page is the gallery at once, each photo a placeholder of its shape, never its full-size copy, and not kept by caches while they are made', async () => {
    // A database of its own: another server's worker (this file's, on the shared one) would make the copies meanwhile.
    const databases = scratchDatabases('copies_pages')
    const server = await startTestServer({ databaseUrl: await databases.create(), ...WORKER_OFF })
    try {
      const live = await makeLiveGallery(server, { images: [makeJpeg(40, 30, 1)] })
      const response = await fetch(`${server.url}/g/${live.sessionId}`)
      expect(response.headers.get('cache-control')).toBe('no-cache')
      const html = await response.text()
      expect(html).toContain('data-page="gallery"')
      expect(html).toContain(`data-coming="${live.photos[0]!.id}"`)
      expect(html).toContain('style="--r:40/30;')
      // The JSON route answers the live gallery at once, as the spec has it, and is revalidated while its copies are made.
      const json = await fetch(`${server.url}/gallery/${live.sessionId}`)
      expect([json.status, json.headers.get('cache-control')]).toEqual([200, 'no-cache'])
      expect(html).not.toContain((await json.json()).photos[0].url)
      expect(html).not.toContain('srcset=')
    } finally {
      await server.stop()
      await databases.dropAll()
    }
  })

  it('when a gallery has its copies, then every photo offers them in srcset with sizes, the first row first and at high priority, and the link preview is the 1200×630 JPEG', async () => {
    const live = await makeLiveGallery(app, { images: [upright, turned, makeJpeg(40, 30, 3)] })
    await copiesSettled(app, live.sessionId)
    const body = await gallery(app, live.sessionId)
    const html = await (await fetch(`${app.url}/g/${live.sessionId}`)).text()
    const images = [...html.matchAll(/<img ([^>]*)>/g)]
      .map((match) => match[1]!)
      .filter((attributes) => !attributes.includes('viewer-image'))
    expect(images).toHaveLength(3)
    for (const [index, attributes] of images.entries()) {
      const photo = body.photos[index]!
      const srcset = photo.copies!.map((copy) => `${copy.url} ${copy.width}w`).join(', ')
      expect(attributes).toContain(`srcset="${srcset}"`)
      expect(attributes).toMatch(/ sizes="[^"]+"/)
      expect(attributes).not.toContain('loading=')
    }
    expect(images[0]).toContain('fetchpriority="high"')
    const meta = (property: string) => new RegExp(`<meta property="${property}" content="([^"]+)">`).exec(html)?.[1]
    expect([meta('og:image'), meta('og:image:type'), meta('og:image:width'), meta('og:image:height')]).toEqual([
      body.preview!.url,
      'image/jpeg',
      '1200',
      '630',
    ])
    // The viewer opens the largest copy.
    expect(html).toContain(`data-large="${body.photos[0]!.copies!.at(-1)!.url}"`)
  })

  it('when a front end of its own uses the SDK, then its helpers make the srcset and pick the copy for a screen', async () => {
    const { photoSrcset, pickPhotoCopy } = await import('@photobooth/sdk')
    const live = await makeLiveGallery(app, { images: [upright] })
    await copiesSettled(app, live.sessionId)
    const client = createClient({ baseUrl: app.url })
    const [photo] = (await client.gallery.getGallery({ sessionId: live.sessionId })).photos
    expect(photoSrcset(photo!)).toBe(photo!.copies!.map((copy) => `${copy.url} ${copy.width}w`).join(', '))
    expect(pickPhotoCopy(photo!, 390, 3).width).toBe(1600)
    expect(pickPhotoCopy(photo!, 173, 3).width).toBe(720)
    expect(pickPhotoCopy(photo!, 300, 3).width).toBe(960)
    expect(pickPhotoCopy({ ...photo!, copies: undefined }, 390, 3).url).toBe(photo!.url)
  })
})
