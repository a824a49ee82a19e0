import { ApiError, createClient, galleryLink, isDefinedError, photoDownloadUrl, safe, zipUrl } from '@photobooth/sdk'
import { beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { seedEvent, seedSession, startTestServer, withTestServer } from '../support/harness.js'
import { unzip } from '../support/unzip.js'

const app = withTestServer()
let gallery: LiveGallery
beforeAll(async () => {
  gallery = await makeLiveGallery(app, { names: ['Zoë', 'Bob'] })
})

/** Reads a stream chunk by chunk, as an app saving a zip to disk would. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; chunks: number }> {
  const reader = body.getReader()
  const parts: Uint8Array[] = []
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value)
  return { bytes: Buffer.concat(parts), chunks: parts.length }
}

const MISSING = 'AAAAAAAAAAAAAAAAAAAAAA'

describe('the SDK’s byte routes', () => {
  it('when a zip is downloaded, then the body is a stream read with a reader, with its exact length and name', async () => {
    const client = createClient({ baseUrl: app.url })
    const zip = await client.gallery.downloadZip({ sessionId: gallery.sessionId })
    expect(zip.status).toBe(200)
    expect(zip.body).toBeInstanceOf(ReadableStream)
    expect(zip.headers['content-type']).toBe('application/zip')
    expect(zip.headers['content-disposition']).toMatch(/^attachment; filename="Zoe & Bob.zip"/)
    const { bytes } = await readAll(zip.body)
    expect(bytes.length).toBe(Number(zip.headers['content-length']))
    expect((await unzip(bytes)).map((entry) => entry.bytes)).toEqual(gallery.photos.map((photo) => photo.bytes))
  })

  it('when a photo is downloaded, then its JPEG bytes stream', async () => {
    const client = createClient({ baseUrl: app.url })
    const photo = gallery.photos[1]!
    const answer = await client.gallery.downloadPhoto({ sessionId: gallery.sessionId, photoId: photo.id })
    expect(answer.headers['content-type']).toBe('image/jpeg')
    expect((await readAll(answer.body)).bytes).toEqual(photo.bytes)
  })

  it('when the gallery is not live, then the byte routes answer a defined NOT_FOUND with the plain text', async () => {
    const client = createClient({ baseUrl: app.url })
    for (const call of [
      () => client.gallery.downloadZip({ sessionId: MISSING }),
      () => client.gallery.downloadPhoto({ sessionId: gallery.sessionId, photoId: MISSING }),
    ]) {
      const [error] = await safe(call())
      if (!isDefinedError(error)) throw new Error('expected a defined error')
      expect([error.code, error.status, error.message]).toEqual(['NOT_FOUND', 404, 'Not Found'])
    }
  })

  it('when a link helper builds the guest links, then they are the gallery page and the files the API serves', async () => {
    expect(galleryLink('https://photos.example.com/g/', 'abc')).toBe('https://photos.example.com/g/abc')
    expect(zipUrl('https://api.example.com/v1/', 'abc')).toBe('https://api.example.com/v1/gallery/abc/zip')
    expect(photoDownloadUrl(new URL('https://api.example.com'), 'a', 'b/c')).toBe('https://api.example.com/gallery/a/photos/b%2Fc/download')

    const live = await createClient({ baseUrl: app.url }).gallery.getGallery({ sessionId: gallery.sessionId })
    expect(galleryLink(app.config.galleryUrl, gallery.sessionId)).toBe(`${app.config.galleryUrl}/${gallery.sessionId}`)
    const zip = await fetch(zipUrl(app.url, gallery.sessionId))
    expect([zip.status, zip.headers.get('content-type')]).toEqual([200, 'application/zip'])
    await zip.body?.cancel()
    const photo = await fetch(photoDownloadUrl(app.url, live.id, live.photos[0]!.id))
    expect(Buffer.from(await photo.arrayBuffer())).toEqual(gallery.photos[0]!.bytes)
  })

  it('when storage is not configured, then a defined SERVICE_UNAVAILABLE', async () => {
    const bare = await startTestServer({ storage: { kind: 'none' } })
    try {
      const { sets } = await seedEvent(bare.orm)
      const session = await seedSession(bare.orm, sets[0]!.id, { photos: 1 })
      const client = createClient({ baseUrl: bare.url, retry: false })
      const [error] = await safe(client.gallery.downloadZip({ sessionId: session.id }))
      if (!isDefinedError(error)) throw new Error('expected a defined error')
      expect([error.code, error.status]).toEqual(['SERVICE_UNAVAILABLE', 503])
      const [photoError] = await safe(client.gallery.downloadPhoto({ sessionId: session.id, photoId: session.photos[0]!.id }))
      expect(isDefinedError(photoError) && photoError.code).toBe('SERVICE_UNAVAILABLE')
    } finally {
      await bare.stop()
    }
  })

  it('when zips are asked for over 60 times a minute, then a defined TOO_MANY_REQUESTS, not retried by default', async () => {
    const limited = await startTestServer()
    try {
      const client = createClient({ baseUrl: limited.url })
      const answers = await Promise.all(Array.from({ length: 61 }, () => safe(client.gallery.downloadZip({ sessionId: MISSING }))))
      const codes = answers.map(([error]) => (error instanceof ApiError ? error.code : 'none'))
      expect(codes.filter((code) => code === 'NOT_FOUND')).toHaveLength(60)
      const [error] = answers.find(([candidate]) => candidate instanceof ApiError && candidate.status === 429)!
      if (!isDefinedError(error)) throw new Error('expected a defined error')
      switch (error.code) {
        case 'TOO_MANY_REQUESTS':
          expect(error.message).toBe('Too many requests. Try again in a minute.')
          break
        case 'NOT_FOUND':
        case 'SERVICE_UNAVAILABLE':
        case 'BAD_REQUEST':
        case 'INTERNAL_SERVER_ERROR':
          throw new Error(`unexpected ${error.code}`)
        default: {
          // Exhaustive: every code downloadZip declares is handled above.
          const unreachable: never = error
          throw new Error(`unreachable ${String(unreachable)}`)
        }
      }
    } finally {
      await limited.stop()
    }
  })
})
