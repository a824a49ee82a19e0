import { createClient } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startFakeS3, type FakeS3 } from '../support/s3.js'
import { signedInStaff, staffFetch } from '../support/staff.js'

let s3: FakeS3
let app: TestServer
beforeAll(async () => {
  s3 = await startFakeS3()
  app = await startTestServer({ storage: s3.settings })
})
afterAll(async () => {
  await app?.stop()
  await s3?.close()
})

/** The bucket's own listing (S3's ListObjectsV2, which s3rver answers without a signature). */
async function keysUnder(prefix: string): Promise<string[]> {
  const response = await fetch(`${s3.endpoint}/${s3.settings.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`)
  expect(response.status).toBe(200)
  return [...(await response.text()).matchAll(/<Key>([^<]+)<\/Key>/g)].map((match) => match[1]!).sort()
}

/** The keys a live gallery of makeLiveGallery's three photos holds once its copies are made. */
function keysOf(gallery: LiveGallery) {
  return expect.arrayContaining([
    ...gallery.photos.map((photo) => `sessions/${gallery.sessionId}/copies/${photo.id}.jpg`),
    `sessions/${gallery.sessionId}/copies/preview.jpg`,
  ])
}

const queued = async (sessionId: string) =>
  app.orm.em
    .fork()
    .execute<{ attempts: number; last_error: string | null }[]>('select attempts, last_error from storage_deletion where prefix = ?', [
      `sessions/${sessionId}/`,
    ])

describe('deleting sessions from an S3 bucket', () => {
  it('when a session is deleted, then every object under its prefix goes, an upload never completed included, and other sessions keep theirs', async () => {
    const doomed = await makeLiveGallery(app)
    const kept = await makeLiveGallery(app)
    await copiesSettled(app, doomed.sessionId)
    await copiesSettled(app, kept.sessionId)
    // An upload that was never completed: no row knows it, the prefix does.
    const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
    await app.orm.em.fork().execute(`update session set status = 'active' where id = ?`, [doomed.sessionId])
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: doomed.sessionId }, body: { count: 1 } })
    expect((await fetch(uploads[0]!.url, { method: 'PUT', headers: uploads[0]!.headers, body: makeJpeg(8, 8) })).status).toBe(200)
    // Three photos, an upload never completed, and the photos' copies.
    const before = await keysUnder(`sessions/${doomed.sessionId}/`)
    expect(before.filter((key) => !key.includes('/copies/')).length).toBe(4)
    expect(before.filter((key) => key.includes('/copies/')).length).toBeGreaterThanOrEqual(3)

    const staff = await signedInStaff(app)
    const response = await staffFetch(app, staff, `/staff/sessions/${doomed.sessionId}`, { method: 'DELETE' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ deleted: { sessions: 1, guests: 1, photos: 3 } })
    expect(await keysUnder(`sessions/${doomed.sessionId}/`)).toEqual([])
    expect(await queued(doomed.sessionId)).toEqual([])
    expect(await keysUnder(`sessions/${kept.sessionId}/`)).toEqual(keysOf(kept))
  })

  it('when storage fails during a deletion, then the rows go, the prefix stays queued with its error, and a later deletion removes the photos', async () => {
    const gallery = await makeLiveGallery(app)
    await copiesSettled(app, gallery.sessionId)
    const stored = await keysUnder(`sessions/${gallery.sessionId}/`)
    // Another instance on the same database, whose storage cannot be reached.
    const broken = await startTestServer({ storage: { ...s3.settings, endpoint: 'http://127.0.0.1:9' } })
    try {
      const staff = await signedInStaff(broken)
      const response = await staffFetch(broken, staff, `/staff/sessions/${gallery.sessionId}`, { method: 'DELETE' })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ deleted: { sessions: 1, guests: 1, photos: 3 } })
    } finally {
      await broken.stop()
    }
    expect(await queued(gallery.sessionId)).toEqual([{ attempts: 1, last_error: expect.any(String) }])
    expect(await keysUnder(`sessions/${gallery.sessionId}/`)).toEqual(stored)
    expect((await fetch(`${app.url}/gallery/${gallery.sessionId}`)).status).toBe(404)

    // The next deletion on an instance that reaches storage takes the queue along.
    const next = await makeLiveGallery(app)
    const staff = await signedInStaff(app)
    expect((await staffFetch(app, staff, `/staff/sessions/${next.sessionId}`, { method: 'DELETE' })).status).toBe(200)
    expect(await keysUnder(`sessions/${gallery.sessionId}/`)).toEqual([])
    expect(await queued(gallery.sessionId)).toEqual([])
  })
})
