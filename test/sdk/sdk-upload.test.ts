import { readdir } from 'node:fs/promises'
import { dirname } from 'node:path'

import { ApiError, createClient, isDefinedError, safe, uploadPhotos, type PhotoBoothClient } from '@photobooth/sdk'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { createBoothClient } from '@photobooth/sdk/booth'
import type { LocalStorage } from '@photobooth/server/modules/storage/local-storage'

const app = withTestServer()
let boothKey: string
let kiosk: PhotoBoothClient
beforeAll(async () => {
  boothKey = await createTestBoothKey(app)
  kiosk = createClient({ baseUrl: app.url })
})

async function newSession(): Promise<string> {
  const { sets } = await seedEvent(app.orm)
  const session = await kiosk.kiosk.registerGuests({
    params: { setId: sets[0]!.id },
    body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] },
  })
  return session.id
}

const isStoragePut = (input: string | URL | Request, init?: RequestInit) =>
  init?.method === 'PUT' && (input instanceof Request ? input.url : input.toString()).includes('/photos/')

describe('the SDK’s upload helper', () => {
  it('when a booth uploads a Buffer, a Uint8Array, a Blob and a stream, then the session completes with them in order', async () => {
    const sessionId = await newSession()
    const images = [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2), makeJpeg(20, 20, 3), makeJpeg(30, 10, 4)]
    const stream = new Blob([images[3]!]).stream()
    const booth = createClient({ baseUrl: app.url, boothKey })
    const progress: number[] = []
    const completed = await uploadPhotos(booth, sessionId, [images[0]!, new Uint8Array(images[1]!), new Blob([images[2]!]), stream], {
      onUploaded: (uploaded) => progress.push(uploaded),
    })
    expect(completed.status).toBe('completed')
    expect(completed.photos.map((photo) => [photo.width, photo.height])).toEqual([
      [24, 16],
      [16, 24],
      [20, 20],
      [30, 10],
    ])
    expect(progress.sort()).toEqual([1, 2, 3, 4])
    const photo = await kiosk.gallery.downloadPhoto({ sessionId, photoId: completed.photos[2]!.id })
    expect(Buffer.from(await new Response(photo.body).arrayBuffer())).toEqual(images[2])
  })

  it('when a PUT fails on the network, then it is sent again, and a 412 on the retry (the first try was stored) counts as done', async () => {
    const sessionId = await newSession()
    let puts = 0
    const flaky = async (input: string | URL | Request, init?: RequestInit) => {
      if (isStoragePut(input, init) && ++puts === 1) {
        // The first PUT reaches storage, but its answer is lost.
        await fetch(input, init)
        throw new TypeError('fetch failed')
      }
      return fetch(input, init)
    }
    const booth = createClient({ baseUrl: app.url, boothKey, fetch: flaky, retry: { minDelayMs: 1, maxDelayMs: 2 } })
    const completed = await uploadPhotos(booth, sessionId, [makeJpeg(12, 12, 5)])
    expect(puts).toBe(2)
    expect(completed.photos).toHaveLength(1)
  })

  it('when storage refuses the signature (a Content-Type other than the signed one), then a typed 403 that names it', async () => {
    const sessionId = await newSession()
    const wrongType = async (input: string | URL | Request, init?: RequestInit) => {
      if (!isStoragePut(input, init)) return fetch(input, init)
      const headers = new Headers(init!.headers)
      headers.set('content-type', 'image/png')
      return fetch(input, { ...init, headers })
    }
    const booth = createClient({ baseUrl: app.url, boothKey, fetch: wrongType })
    const [error] = await safe(uploadPhotos(booth, sessionId, [makeJpeg(8, 8, 6)]))
    expect(error).toBeInstanceOf(ApiError)
    if (!isDefinedError(error)) throw new Error('expected a defined storage error')
    expect([error.status, error.code]).toEqual([403, 'FORBIDDEN'])
    expect(error.data).toEqual({ storageCode: 'SignatureDoesNotMatch', key: expect.stringMatching(new RegExp(`^sessions/${sessionId}/`)) })
    expect(error.message).toMatch(/Content-Type other than image\/jpeg/)
    // Nothing was completed: the session is still in the queue.
    const { sessions } = await booth.booth.listQueue({
      setId: (await app.orm.em.fork().execute<{ set_id: string }[]>('select set_id from session where id = ?', [sessionId]))[0]!.set_id,
    })
    expect(sessions.map((session) => session.id)).toContain(sessionId)
  })

  it('when a photo is not a JPEG, then completing answers the typed 422 with its key in data.notJpeg', async () => {
    const sessionId = await newSession()
    const booth = createClient({ baseUrl: app.url, boothKey })
    const [error] = await safe(uploadPhotos(booth, sessionId, [makeJpeg(8, 8, 9), new TextEncoder().encode('not a jpeg')]))
    if (!isDefinedError(error) || error.code !== 'UNPROCESSABLE_CONTENT') throw new Error('expected a defined 422')
    // Typed as the completion's 422 or, from the upload targets, a reused key's (which has no data).
    expect(error.data?.notJpeg).toEqual([expect.stringMatching(new RegExp(`^sessions/${sessionId}/`))])
    expect(error.data?.missing).toBeUndefined()
  })

  it('when the session was cancelled, then createUploads answers its typed 409 before any PUT', async () => {
    const sessionId = await newSession()
    const booth = createClient({ baseUrl: app.url, boothKey })
    await booth.booth.cancel({ params: { sessionId } })
    const [error] = await safe(uploadPhotos(booth, sessionId, [makeJpeg(8, 8, 7)]))
    expect(isDefinedError(error) && [error.code, error.status]).toEqual(['CONFLICT', 409])
  })

  it('when an upload URL is used after its session ended, then storage’s AccessDenied comes back typed', async () => {
    const sessionId = await newSession()
    const booth = createClient({ baseUrl: app.url, boothKey })
    let cancelled = false
    const cancelFirst = async (input: string | URL | Request, init?: RequestInit) => {
      if (isStoragePut(input, init) && !cancelled) {
        cancelled = true
        await booth.booth.cancel({ params: { sessionId } })
      }
      return fetch(input, init)
    }
    const racing = createClient({ baseUrl: app.url, boothKey, fetch: cancelFirst })
    const [error] = await safe(uploadPhotos(racing, sessionId, [makeJpeg(8, 8, 8)]))
    if (!isDefinedError(error)) throw new Error('expected a defined storage error')
    expect([error.status, error.code, (error.data as { storageCode: string }).storageCode]).toEqual([403, 'FORBIDDEN', 'AccessDenied'])
  })
})

describe('an upload resumed after its URLs expired', () => {
  let clock = Date.parse('2026-07-01T18:00:00Z')
  const clocked = withTestServer({}, { now: () => new Date(clock) })

  it('when a photo was stored but its answer lost, and the booth retries after the URL expired, then storage says it is there and no second copy is stored', async () => {
    const { sets } = await seedEvent(clocked.orm)
    const sessionId = await createClient({ baseUrl: clocked.url })
      .kiosk.registerGuests({
        params: { setId: sets[0]!.id },
        body: { guests: [{ name: 'Late', email: 'late@example.org' }] },
      })
      .then((session) => session.id)
    let puts = 0
    let down = false
    // The second PUT reaches storage and is stored, then the link goes before its answer comes back.
    const venue = async (input: string | URL | Request, init?: RequestInit) => {
      if (down) throw new TypeError('fetch failed')
      if (isStoragePut(input, init) && ++puts === 2) {
        await fetch(input, init)
        down = true
        throw new TypeError('fetch failed')
      }
      return fetch(input, init)
    }
    const { createOfflineQueue, memoryStore } = await import('@photobooth/sdk/queue')
    const queue = createOfflineQueue({
      client: createBoothClient({ baseUrl: clocked.url, boothKey: await createTestBoothKey(clocked), fetch: venue, retry: false }),
      store: memoryStore(),
      retry: { minDelayMs: 10, maxDelayMs: 10 },
    })
    try {
      const photos = [makeJpeg(12, 10, 1), makeJpeg(10, 12, 2), makeJpeg(14, 14, 3)]
      expect(await queue.uploadPhotos(sessionId, photos)).toMatchObject({ status: 'queued' })
      // The link comes back twenty minutes later: the URLs signed for fifteen have expired.
      clock += 20 * 60_000
      down = false
      const sent = new Promise((resolve) => queue.on('sent', resolve))
      queue.wake()
      expect(await sent).toMatchObject({ result: { status: 'completed', photos: [{ width: 12 }, { width: 10 }, { width: 14 }] } })
      const folder = dirname((clocked.storage as LocalStorage).pathOf(`sessions/${sessionId}/x.jpg`)!)
      const stored = (await readdir(folder)).filter((name) => name.endsWith('.jpg'))
      expect(stored).toHaveLength(photos.length)
    } finally {
      queue.close()
    }
  })
})
