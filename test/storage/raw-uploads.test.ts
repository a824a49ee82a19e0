/**
 * A booth's upload is the camera's file, GPS position and body serial included (issue 35, item 8):
 * guests get copies made without that metadata, and on S3 the bucket's policy keeps uploads
 * private. The local bucket of development answers `GET /photos/<upload key>` no more than that:
 * to its booth while the session is active, never once it is completed or cancelled, never for an
 * upload made through a key revoked since, and for galleries completed before copies existed (their
 * photos' URL is the upload's own) as production serves them.
 */
import { createClient } from '@photobooth/sdk'
import exifr from 'exifr'
import { beforeAll, describe, expect, it } from 'vitest'

import { makeCameraJpeg } from '../support/camera.js'
import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let owner: StaffSession
let setId: string
let camera: Buffer
beforeAll(async () => {
  owner = await signedInStaff(app)
  setId = (await seedEvent(app.orm)).sets[0]!.id
  camera = await makeCameraJpeg({ width: 1200, height: 800, seed: 7 })
})

type Upload = { key: string; url: string; method: string; headers: Record<string, string> }

async function uploaded(boothKey: string, sessionId: string, image: Buffer): Promise<Upload> {
  const booth = createClient({ baseUrl: app.url, boothKey })
  const { uploads } = await booth.booth.createUploads({ params: { sessionId }, body: { count: 1 } })
  const response = await fetch(uploads[0]!.url, { method: 'PUT', headers: uploads[0]!.headers, body: image })
  expect(response.status).toBe(200)
  return uploads[0]!
}

const complete = (boothKey: string, sessionId: string, photos: string[]) =>
  createClient({ baseUrl: app.url, boothKey }).booth.complete({ params: { sessionId }, body: { photos } })

/** What `GET /photos/<key>` gives a browser: the status, and the GPS position of what it served. */
async function read(key: string) {
  const response = await fetch(`${app.url}/photos/${key}`)
  const bytes = Buffer.from(await response.arrayBuffer())
  const gps = response.status === 200 ? await exifr.gps(bytes).catch(() => undefined) : undefined
  return { status: response.status, cacheControl: response.headers.get('cache-control'), gps }
}

describe('GET /photos/<upload key> of the local bucket', () => {
  it('when the session is completed, then its upload answers 404, and its photo’s URL serves the copy without the camera’s position', async () => {
    const boothKey = await createTestBoothKey(app)
    const sessionId = await registerGuests(app, setId, [{ name: 'Ada Lovelace', email: 'ada.raw@example.org' }])
    const upload = await uploaded(boothKey, sessionId, camera)
    // While the session is active its booth may look at what it sent, and no cache keeps it.
    expect(await read(upload.key)).toMatchObject({ status: 200, cacheControl: 'no-store', gps: { latitude: expect.any(Number) } })

    const { photos } = await complete(boothKey, sessionId, [upload.key])
    expect(await read(upload.key)).toEqual({ status: 404, cacheControl: null, gps: undefined })
    const gallery = await (await fetch(`${app.url}/gallery/${sessionId}`)).json()
    const photo = gallery.photos.find((shown: { id: string }) => shown.id === photos[0]!.id)
    const served = await fetch(photo.url)
    expect(served.status).toBe(200)
    expect(await exifr.gps(Buffer.from(await served.arrayBuffer())).catch(() => undefined)).toBeUndefined()
  })

  it('when the session is cancelled, then its upload answers 404', async () => {
    const boothKey = await createTestBoothKey(app)
    const sessionId = await registerGuests(app, setId, [{ name: 'Grace Hopper', email: 'grace.raw@example.org' }])
    const upload = await uploaded(boothKey, sessionId, camera)
    await createClient({ baseUrl: app.url, boothKey }).booth.cancel({ params: { sessionId } })
    expect((await read(upload.key)).status).toBe(404)
  })

  it('when the key that uploaded it is revoked, then the upload answers 404, before and after another booth completes the session', async () => {
    const stolen = await createTestBoothKey(app, 'Stolen booth')
    const live = await createTestBoothKey(app, 'Live booth')
    const sessionId = await registerGuests(app, setId, [{ name: 'Alan Turing', email: 'alan.raw@example.org' }])
    const planted = await uploaded(stolen, sessionId, camera)
    expect((await staffFetch(app, owner, `/staff/booth-keys/${stolen.split('_')[1]}/revoke`, { method: 'POST' })).status).toBe(200)
    expect((await read(planted.key)).status).toBe(404)

    const own = await uploaded(live, sessionId, makeJpeg(24, 16, 1))
    await complete(live, sessionId, [own.key])
    expect((await read(planted.key)).status).toBe(404)
  })

  it('when a gallery was completed before copies existed, then its photos are served as uploaded at their URL, as on the CDN', async () => {
    const boothKey = await createTestBoothKey(app)
    const sessionId = await registerGuests(app, setId, [{ name: 'Edsger Dijkstra', email: 'edsger.raw@example.org' }])
    const upload = await uploaded(boothKey, sessionId, camera)
    await complete(boothKey, sessionId, [upload.key])
    await app.orm.em.fork().execute(`update photo set image_status = 'legacy' where session_id = ?`, [sessionId])
    const gallery = await (await fetch(`${app.url}/gallery/${sessionId}`)).json()
    expect(new URL(gallery.photos[0].url).pathname).toBe(`/photos/${upload.key}`)
    expect(await read(upload.key)).toMatchObject({ status: 200, cacheControl: 'public, max-age=31536000, immutable' })
  })
})
