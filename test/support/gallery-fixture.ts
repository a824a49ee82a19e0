import { createClient } from '@photobooth/sdk'

import { createTestBoothKey, seedEvent, type TestServer } from './harness.js'
import { makeJpeg } from './jpeg.js'
import { until } from './until.js'

export type LiveGallery = { sessionId: string; label: string; photos: { id: string; bytes: Buffer }[] }

/**
 * A live gallery made the way production makes one: kiosk registration, presigned uploads of the
 * given bytes, completion by the booth.
 */
export type FixtureGuest = { name: string; email?: string; phone?: string; marketingOptIn?: boolean; hideFromEventPage?: boolean }

export async function makeLiveGallery(
  app: TestServer,
  /** `setId`: a set of an event seeded beforehand (several galleries of one event); else a new event's. */
  options: { names?: string[]; guests?: FixtureGuest[]; images?: Buffer[]; setId?: string } = {},
): Promise<LiveGallery> {
  const guests = options.guests ?? (options.names ?? ['Ada Lovelace']).map((name, i) => ({ name, email: `guest${i}@example.org` }))
  const images = options.images ?? [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2), makeJpeg(20, 20, 3)]
  const setId = options.setId ?? (await seedEvent(app.orm)).sets[0]!.id
  const kiosk = createClient({ baseUrl: app.url })
  const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app) })
  const session = await kiosk.kiosk.registerGuests({
    params: { setId },
    body: { guests },
  })
  const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: images.length } })
  for (const [index, upload] of uploads.entries()) {
    const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[index] })
    if (!response.ok) throw new Error(`upload failed: ${response.status} ${await response.text()}`)
  }
  const completed = await booth.booth.complete({ params: { sessionId: session.id }, body: { photos: uploads.map((u) => u.key) } })
  return { sessionId: session.id, label: session.label, photos: completed.photos.map((photo, i) => ({ id: photo.id, bytes: images[i]! })) }
}

/** Resolves once the copies worker has settled every photo of the session (made, or failed). */
export async function copiesSettled(app: TestServer, sessionId: string): Promise<void> {
  await until(
    () =>
      app.orm.em
        .fork()
        .execute<{ queued: number }[]>("select count(*)::int as queued from photo where session_id = ? and image_status = 'queued'", [
          sessionId,
        ]),
    ([row]) => row!.queued === 0,
  )
}
