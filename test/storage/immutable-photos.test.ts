import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { loadSettings } from '@photobooth/server/config'
import { fullSizeKey } from '@photobooth/server/modules/photos/photo-copies.service'
import { createLocalStorage } from '@photobooth/server/modules/storage/local-storage'
import { createS3Storage } from '@photobooth/server/modules/storage/s3-storage'
import { createClient } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startFakeS3, type FakeS3 } from '../support/s3.js'

let app: TestServer
let bucket: string
const secret = randomBytes(32).toString('base64url')
beforeAll(async () => {
  bucket = await mkdtemp(join(tmpdir(), 'photobooth-immutable-'))
  app = await startTestServer({ storage: { kind: 'local', root: bucket, secret } })
})
afterAll(async () => {
  await app?.stop()
  await rm(bucket, { recursive: true, force: true })
})

async function activeSession(server: TestServer = app) {
  const { sets } = await seedEvent(server.orm)
  const kiosk = createClient({ baseUrl: server.url })
  const session = await kiosk.kiosk.registerGuests({
    params: { setId: sets[0]!.id },
    body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] },
  })
  const booth = createClient({ baseUrl: server.url, boothKey: await createTestBoothKey(server) })
  return { session, booth }
}

const put = (target: { url: string; headers: Record<string, string> }, body: Buffer) =>
  fetch(target.url, { method: 'PUT', headers: target.headers, body })

async function expectS3Error(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(await response.text()).toContain(`<Code>${code}</Code>`)
}

/** Reads a whole answer over one connection: its status, declared length and the bytes that came. */
function download(url: string): Promise<{ status: number; declared: number; received: number; failed: boolean }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let received = 0
      res.on('data', (chunk: Buffer) => (received += chunk.length))
      const done = (failed: boolean) =>
        resolve({ status: res.statusCode!, declared: Number(res.headers['content-length']), received, failed })
      res.on('end', () => done(false))
      res.on('error', () => done(true))
      res.on('aborted', () => done(true))
    })
      .on('error', reject)
      .end()
  })
}

describe('a presigned upload URL replayed', () => {
  it('when the session was completed, then the PUT answers 403 and the published photo is unchanged', async () => {
    const { session, booth } = await activeSession()
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })
    const image = makeJpeg(20, 10)
    expect((await put(uploads[0]!, image)).status).toBe(200)
    await booth.booth.complete({ params: { sessionId: session.id }, body: { photos: [uploads[0]!.key] } })

    await expectS3Error(await put(uploads[0]!, Buffer.from('not a jpeg at all')), 403, 'AccessDenied')
    // Read in the bucket: a completed session's upload is no longer served (raw-uploads.test.ts).
    expect((await readFile(join(bucket, uploads[0]!.key))).equals(image)).toBe(true)
  })

  it('when the session was cancelled, then a PUT to a fresh key answers 403 and nothing is stored', async () => {
    const { session, booth } = await activeSession()
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })
    await booth.booth.cancel({ params: { sessionId: session.id } })
    await expectS3Error(await put(uploads[0]!, makeJpeg(8, 8)), 403, 'AccessDenied')
    expect((await fetch(`${app.url}/photos/${uploads[0]!.key}`)).status).toBe(404)
  })

  it('when the key already holds a photo, then 412 PreconditionFailed and the first photo stays', async () => {
    const { session, booth } = await activeSession()
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })
    expect(uploads[0]!.headers).toEqual({ 'Content-Type': 'image/jpeg', 'If-None-Match': '*' })
    const first = makeJpeg(12, 12, 1)
    expect((await put(uploads[0]!, first)).status).toBe(200)
    await expectS3Error(await put(uploads[0]!, makeJpeg(30, 30, 2)), 412, 'PreconditionFailed')
    const served = await fetch(`${app.url}/photos/${uploads[0]!.key}`)
    expect(Buffer.from(await served.arrayBuffer()).equals(first)).toBe(true)
  })

  it('when two uploads race for one key, then exactly one is stored and no partial file stays', async () => {
    const { session, booth } = await activeSession()
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })
    const statuses = await Promise.all([1, 2, 3, 4].map((seed) => put(uploads[0]!, makeJpeg(64, 64, seed)).then((r) => r.status)))
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 412)).toHaveLength(3)
    expect(await readdir(join(bucket, 'sessions', session.id))).toEqual([uploads[0]!.key.split('/')[2]])
  })

  it('when a URL is signed to live longer than 15 minutes, then 403 AccessDenied', async () => {
    const { session, booth } = await activeSession()
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })
    const forger = createLocalStorage({ root: bucket, publicUrl: app.url, secret, now: () => new Date() })
    const longLived = await forger.presignUpload(uploads[0]!.key, 7 * 24 * 3600)
    await expectS3Error(await put(longLived, makeJpeg(8, 8)), 403, 'AccessDenied')
  })
})

describe('a stored photo that no longer matches what completion recorded', () => {
  it('when a photo was replaced behind the service, then its download fails instead of sending other bytes', async () => {
    const gallery = await makeLiveGallery(app)
    await copiesSettled(app, gallery.sessionId)
    // What guests are sent: the full-size copy, recorded with its size and ETag when it was made.
    const key = fullSizeKey(gallery.sessionId, gallery.photos[0]!.id)
    // Larger, then same-size bytes: neither may reach a guest under the recorded Content-Length.
    await writeFile(join(bucket, key), Buffer.concat([gallery.photos[0]!.bytes, Buffer.alloc(5000)]))
    const url = `${app.url}/gallery/${gallery.sessionId}/photos/${gallery.photos[0]!.id}/download`
    const larger = await download(url)
    expect(larger.status).toBe(500)
    await writeFile(join(bucket, key), Buffer.alloc(gallery.photos[0]!.bytes.length, 1))
    expect((await download(url)).status).toBe(500)
    // The service still answers on the next request.
    expect((await fetch(`${app.url}/gallery/${gallery.sessionId}`)).status).toBe(200)
  })

  it('when a later photo of a zip was cut short, then the zip ends as an error, never past or short of its length silently', async () => {
    const gallery = await makeLiveGallery(app)
    await copiesSettled(app, gallery.sessionId)
    await writeFile(join(bucket, fullSizeKey(gallery.sessionId, gallery.photos[2]!.id)), gallery.photos[2]!.bytes.subarray(0, 10))
    const zip = await download(`${app.url}/gallery/${gallery.sessionId}/zip`)
    expect(zip.status).toBe(200)
    expect(zip.failed).toBe(true)
    expect(zip.received).toBeLessThan(zip.declared)
  })
})

describe('the local bucket at start', () => {
  it('when a crash left partial uploads, then stale ones are removed and fresh ones kept', async () => {
    const root = await mkdtemp(join(tmpdir(), 'photobooth-sweep-'))
    try {
      const folder = join(root, 'sessions', 'abc')
      const storage = createLocalStorage({ root, publicUrl: 'http://localhost', secret, now: () => new Date() })
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, '.upload-stale'), 'half a photo')
      await writeFile(join(folder, '.upload-fresh'), 'being written')
      await writeFile(join(folder, 'photo.jpg'), 'a photo')
      const hourAgo = new Date(Date.now() - 3600_000)
      await utimes(join(folder, '.upload-stale'), hourAgo, hourAgo)
      await utimes(join(folder, 'photo.jpg'), hourAgo, hourAgo)
      expect(await storage.sweepPartialUploads(15 * 60_000)).toBe(1)
      expect((await readdir(folder)).sort()).toEqual(['.upload-fresh', 'photo.jpg'])
      expect((await stat(join(folder, 'photo.jpg'))).size).toBe(7)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})

describe('the default configuration (DATA_DIR=.data)', () => {
  it('when a gallery answers, then its photo URLs serve the photo, embeddable from another origin', async () => {
    const defaults = loadSettings({})
    expect(defaults.storage).toMatchObject({ kind: 'local', root: join('.data', 'bucket') })
    const server = await startTestServer({ storage: defaults.storage })
    let sessionId: string | undefined
    try {
      const gallery = await makeLiveGallery(server)
      sessionId = gallery.sessionId
      const answer = (await (await fetch(`${server.url}/gallery/${gallery.sessionId}`)).json()) as { photos: { url: string }[] }
      const photo = await fetch(answer.photos[0]!.url)
      expect(photo.status).toBe(200)
      expect(photo.headers.get('cross-origin-resource-policy')).toBe('cross-origin')
      expect(Buffer.from(await photo.arrayBuffer()).equals(gallery.photos[0]!.bytes)).toBe(true)
    } finally {
      await server.stop()
      if (sessionId) await rm(join('.data', 'bucket', 'sessions', sessionId), { recursive: true, force: true })
    }
  })
})

describe('S3 presigned uploads', () => {
  let s3: FakeS3
  beforeAll(async () => {
    s3 = await startFakeS3()
  })
  afterAll(() => s3?.close())

  it('when a target is presigned, then If-None-Match: * is bound into the signature and the booth is told to send it', async () => {
    const storage = createS3Storage({ ...s3.settings, now: () => new Date() })
    const target = await storage.presignUpload('sessions/abc/def.jpg', 900)
    expect(new URL(target.url).searchParams.get('X-Amz-SignedHeaders')!.split(';')).toEqual(
      expect.arrayContaining(['content-type', 'if-none-match']),
    )
    expect(target.headers).toEqual({ 'Content-Type': 'image/jpeg', 'If-None-Match': '*' })
    // Sent as told, the upload is accepted. (s3rver verifies neither presigned signatures nor
    // If-None-Match, so the refusal of a second PUT is AWS's to enforce: docs/production.md, photo storage.)
    expect((await put(target, makeJpeg(8, 8))).status).toBe(200)
  })
})
