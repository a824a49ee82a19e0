import { readdirSync, readlinkSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { get } from 'node:http'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'

import { fullSizeKey } from '@photobooth/server/modules/photos/photo-copies.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { seedEvent, seedSession, startTestServer, type TestServer, withTestServer } from '../support/harness.js'
import { makeLargeJpeg } from '../support/jpeg.js'
import { startS3TestServer, type FakeS3, type S3TestServer } from '../support/s3.js'
import { unzip } from '../support/unzip.js'

const app = withTestServer()

async function countsOf(sessionId: string) {
  const rows = await app.orm.em
    .fork()
    .execute<{ kind: string; count: string }[]>('select kind, count(*) from tracking_event where session_id = ? group by kind', [sessionId])
  return Object.fromEntries(rows.map((row) => [row.kind, Number(row.count)]))
}

async function expectPlainNotFound(response: Response) {
  expect(response.status).toBe(404)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
  expect(await response.text()).toBe('Not Found')
  expect(response.headers.get('strict-transport-security')).toBeTruthy()
}

async function expectPlainNotFoundHead(response: Response) {
  expect(response.status).toBe(404)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
  expect(await response.text()).toBe('')
}

describe('GET /gallery/:sessionId/photos/:photoId/download', () => {
  it('when the photo is in a live gallery, then its bytes come as an attachment named "<label> <n>.jpg" and it is counted', async () => {
    const gallery = await makeLiveGallery(app)
    const response = await fetch(`${app.url}/gallery/${gallery.sessionId}/photos/${gallery.photos[1]!.id}/download`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/jpeg')
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="Ada Lovelace 2.jpg"')
    expect(Number(response.headers.get('content-length'))).toBe(gallery.photos[1]!.bytes.length)
    expect(Buffer.from(await response.arrayBuffer()).equals(gallery.photos[1]!.bytes)).toBe(true)
    expect(await countsOf(gallery.sessionId)).toEqual({ download: 1 })
  })

  it('when the label has non-ASCII and quote characters, then the name is encoded per RFC 6266 with an ASCII fallback', async () => {
    const gallery = await makeLiveGallery(app, { names: ["Zoë O'Brien"] })
    expect(gallery.label).toBe("Zoë O'Brien")
    const response = await fetch(`${app.url}/gallery/${gallery.sessionId}/photos/${gallery.photos[0]!.id}/download`)
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Zoe O'Brien 1.jpg"; filename*=UTF-8''Zo%C3%AB%20O%27Brien%201.jpg`,
    )
    await response.arrayBuffer()
  })

  it('when the photo belongs to another gallery, or the ids name nothing, then a plain-text 404 and nothing is counted', async () => {
    const [one, other] = [await makeLiveGallery(app), await makeLiveGallery(app)]
    await expectPlainNotFound(await fetch(`${app.url}/gallery/${one.sessionId}/photos/${other.photos[0]!.id}/download`))
    await expectPlainNotFound(await fetch(`${app.url}/gallery/${one.sessionId}/photos/nope/download`))
    await expectPlainNotFound(await fetch(`${app.url}/gallery/nope/photos/${one.photos[0]!.id}/download`))
    await expectPlainNotFound(await fetch(`${app.url}/gallery/${'%24'.repeat(5)}/photos/x/download`))
    expect(await countsOf(one.sessionId)).toEqual({})
  })

  it('when the session is not live, then a plain-text 404', async () => {
    const { sets } = await seedEvent(app.orm)
    const active = await seedSession(app.orm, sets[0]!.id, { status: 'active', photos: 0 })
    await expectPlainNotFound(await fetch(`${app.url}/gallery/${active.id}/photos/x/download`))
    await expectPlainNotFound(await fetch(`${app.url}/gallery/${active.id}/zip`))
  })
})

describe('GET /gallery/:sessionId/zip', () => {
  it('when the gallery is live, then every photo comes in one stored zip in gallery order, with an exact Content-Length, and it is counted', async () => {
    const gallery = await makeLiveGallery(app, { names: ["Zoë O'Brien", 'Bob'] })
    const response = await fetch(`${app.url}/gallery/${gallery.sessionId}/zip`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/zip')
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Zoe & Bob.zip"; filename*=UTF-8''Zo%C3%AB%20%26%20Bob.zip`,
    )
    const zip = Buffer.from(await response.arrayBuffer())
    expect(Number(response.headers.get('content-length'))).toBe(zip.length)
    const entries = await unzip(zip)
    expect(entries.map((entry) => entry.name)).toEqual(['Zoë & Bob 1.jpg', 'Zoë & Bob 2.jpg', 'Zoë & Bob 3.jpg'])
    expect(entries.every((entry) => entry.compressionMethod === 0)).toBe(true)
    entries.forEach((entry, index) => expect(entry.bytes.equals(gallery.photos[index]!.bytes)).toBe(true))
    // The checksums archiver wrote (through the native crc-32 stand-in) are those of the bytes.
    entries.forEach((entry) => expect(entry.crc32).toBe(crc32(entry.bytes)))
    expect(await countsOf(gallery.sessionId)).toEqual({ zip: 1 })
  })

  it("when photos span many read buffers and the client reads slowly, then every byte is still the photo's own", async () => {
    // The zip reads into recycled buffers; one reused before the socket sent it would corrupt the zip.
    const big = () => makeLargeJpeg(3 * 1024 * 1024 + 12_345)
    const gallery = await makeLiveGallery(app, { images: [big(), big(), big(), big()] })
    const zip = await new Promise<Buffer>((resolve, reject) => {
      get(`${app.url}/gallery/${gallery.sessionId}/zip`, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          // Slow, so that the server's socket fills up and its writes wait.
          response.pause()
          setTimeout(() => response.resume(), 2)
        })
        response.once('end', () => resolve(Buffer.concat(chunks)))
        response.once('error', reject)
      }).once('error', reject)
    })
    const entries = await unzip(zip)
    expect(entries).toHaveLength(4)
    entries.forEach((entry, index) => expect(entry.bytes.equals(gallery.photos[index]!.bytes)).toBe(true))
    entries.forEach((entry) => expect(entry.crc32).toBe(crc32(entry.bytes)))
  })

  it('when asked with HEAD, then the zip and the photo answer their headers, send no bytes and count nothing', async () => {
    const gallery = await makeLiveGallery(app)
    const zip = await fetch(`${app.url}/gallery/${gallery.sessionId}/zip`)
    const zipBytes = (await zip.arrayBuffer()).byteLength
    const photoUrl = `${app.url}/gallery/${gallery.sessionId}/photos/${gallery.photos[0]!.id}/download`
    const photoGet = await fetch(photoUrl)
    await photoGet.arrayBuffer()
    const counted = await countsOf(gallery.sessionId)

    const zipHead = await fetch(`${app.url}/gallery/${gallery.sessionId}/zip`, { method: 'HEAD' })
    expect(zipHead.status).toBe(200)
    expect(Number(zipHead.headers.get('content-length'))).toBe(zipBytes)
    expect(zipHead.headers.get('content-disposition')).toBe(zip.headers.get('content-disposition'))
    const photoHead = await fetch(photoUrl, { method: 'HEAD' })
    expect(photoHead.status).toBe(200)
    // Per answer, not per entity: the date, the connection, and the request's own id.
    const entity = (headers: Headers) =>
      [...headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'x-request-id'].includes(name))
    expect(entity(photoHead.headers)).toEqual(entity(photoGet.headers))
    expect(await countsOf(gallery.sessionId)).toEqual(counted)
    await expectPlainNotFoundHead(await fetch(`${app.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA/zip`, { method: 'HEAD' }))
  })

  it('when an id holds a control character or runs past 200 characters, then the plain-text 404 of any unknown id', async () => {
    const gallery = await makeLiveGallery(app)
    for (const path of [
      `/gallery/a%00b/zip`,
      `/gallery/${'a'.repeat(201)}/zip`,
      `/gallery/${gallery.sessionId}/photos/a%00b/download`,
      `/gallery/a%01b/photos/${gallery.photos[0]!.id}/download`,
    ]) {
      await expectPlainNotFound(await fetch(`${app.url}${path}`))
    }
    expect(await countsOf(gallery.sessionId)).toEqual({})
  })

  it('when the session id names nothing, then a plain-text 404', async () => {
    await expectPlainNotFound(await fetch(`${app.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA/zip`))
  })

  it('when a photo cannot be read mid-zip, then the answer is cut short, the service goes on, and no file stays open', async () => {
    const big = () => makeLargeJpeg(2 * 1024 * 1024)
    const gallery = await makeLiveGallery(app, { images: [big(), big()] })
    await copiesSettled(app, gallery.sessionId)
    // The second photo's full-size copy (what the zip sends) becomes a folder: it opens, and its first read fails (EISDIR).
    const settings = app.config.storage
    if (settings.kind !== 'local') throw new Error('the test server has a local bucket')
    const path = join(settings.root, fullSizeKey(gallery.sessionId, gallery.photos[1]!.id))
    await rm(path)
    await mkdir(path)

    const outcome = await new Promise<{ received: number; expected: number; cut: boolean }>((resolve) => {
      get(`${app.url}/gallery/${gallery.sessionId}/zip`, (response) => {
        let received = 0
        const expected = Number(response.headers['content-length'])
        response.on('data', (chunk: Buffer) => (received += chunk.length))
        response.once('end', () => resolve({ received, expected, cut: false }))
        response.once('aborted', () => resolve({ received, expected, cut: true }))
        response.once('error', () => resolve({ received, expected, cut: true }))
      })
    })
    expect(outcome.cut).toBe(true)
    expect(outcome.received).toBeLessThan(outcome.expected)
    expect((await fetch(`${app.url}/gallery/${gallery.sessionId}`)).status).toBe(200)
    const openFiles = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).includes(`/sessions/${gallery.sessionId}/`)
      } catch {
        return false
      }
    })
    expect(openFiles).toEqual([])
  })

  it('when the client disconnects mid-zip, then the archive stops and no photo file stays open', async () => {
    const big = () => makeLargeJpeg(2 * 1024 * 1024)
    const gallery = await makeLiveGallery(app, { images: [big(), big(), big(), big()] })
    // The copies worker's reads are over: the files open now are the zip's.
    await copiesSettled(app, gallery.sessionId)
    const openPhotoFiles = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).includes(`/sessions/${gallery.sessionId}/`)
        } catch {
          return false
        }
      }).length

    let openWhileStreaming = 0
    await new Promise<void>((resolve, reject) => {
      const request = get(`${app.url}/gallery/${gallery.sessionId}/zip`, (response) => {
        response.once('data', () => {
          openWhileStreaming = openPhotoFiles()
          request.destroy()
          resolve()
        })
      })
      request.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)))
    })
    expect(openWhileStreaming).toBeGreaterThan(0)
    for (let waited = 0; waited < 2000 && openPhotoFiles() > 0; waited += 50) await new Promise((r) => setTimeout(r, 50))
    // And it stays so: the archive does not go on reading the remaining photos for nobody.
    for (let sample = 0; sample < 10; sample++) {
      expect(openPhotoFiles()).toBe(0)
      await new Promise((r) => setTimeout(r, 30))
    }
  })
})

describe('GET /gallery/:sessionId/zip on S3', () => {
  let s3: FakeS3
  let onS3: TestServer
  let server: S3TestServer | undefined
  beforeAll(async () => {
    server = await startS3TestServer('downloads_s3')
    ;({ s3, app: onS3 } = server)
  })
  afterAll(() => server?.stop())

  it('when the client disconnects mid-zip, then the S3 read in hand is closed and no other starts', async () => {
    // Larger than what loopback sockets buffer, so that S3 is still sending the first photo when the client goes.
    const big = () => makeLargeJpeg(24 * 1024 * 1024)
    const gallery = await makeLiveGallery(onS3, { images: [big(), big()] })
    // The copies worker's reads of the uploads are over: what is counted is the zip's.
    await copiesSettled(onS3, gallery.sessionId)
    const before = s3.reads()

    let openWhileStreaming = 0
    await new Promise<void>((resolve, reject) => {
      const request = get(`${onS3.url}/gallery/${gallery.sessionId}/zip`, (response) => {
        response.once('data', () => {
          // Held up by the paused client, the server's read of the first photo stays open.
          response.pause()
          setTimeout(() => {
            openWhileStreaming = s3.reads().open
            request.destroy()
            resolve()
          }, 100)
        })
      })
      request.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)))
    })
    expect(openWhileStreaming).toBe(1)
    for (let waited = 0; waited < 2000 && s3.reads().open > 0; waited += 50) await new Promise((r) => setTimeout(r, 50))
    for (let sample = 0; sample < 10; sample++) {
      expect(s3.reads().open).toBe(0)
      await new Promise((r) => setTimeout(r, 30))
    }
    // Only the first photo was ever asked for: the archive stopped with the client.
    expect(s3.reads().started - before.started).toBe(1)
  })
})

describe('byte routes with no photo storage configured (production without a bucket)', () => {
  let bare: TestServer
  beforeAll(async () => {
    bare = await startTestServer({ storage: { kind: 'none' } })
  })
  afterAll(() => bare?.stop())

  it('when the gallery is live, then 503 { error: "photo storage is not configured" } and nothing is counted; an unknown gallery is still the plain 404', async () => {
    const { sets } = await seedEvent(bare.orm)
    const live = await seedSession(bare.orm, sets[0]!.id, { status: 'completed', photos: 2 })
    for (const path of [`/gallery/${live.id}/zip`, `/gallery/${live.id}/photos/${live.photos[0]!.id}/download`]) {
      for (const method of ['GET', 'HEAD']) {
        const response = await fetch(`${bare.url}${path}`, { method })
        expect([method, path, response.status]).toEqual([method, path, 503])
        expect(response.headers.get('strict-transport-security')).toBeTruthy()
        if (method === 'GET')
          expect(await response.json()).toEqual({ error: 'photo storage is not configured', code: 'storage_not_configured' })
      }
    }
    const counts = await bare.orm.em.fork().execute('select count(*)::int as n from tracking_event where session_id = ?', [live.id])
    expect(counts).toEqual([{ n: 0 }])
    await expectPlainNotFound(await fetch(`${bare.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA/zip`))
  })
})
