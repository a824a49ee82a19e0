import { describe, expect, it } from 'vitest'

import { seedEvent, seedSession, withTestServer } from '../support/harness.js'

const app = withTestServer({ cdnUrl: 'https://cdn.example.net/photos' })

describe('GET /gallery/:sessionId', () => {
  it('when a session is completed with photos, then its gallery lists them in gallery order on the CDN base', async () => {
    const startAt = new Date('2026-08-01T20:00:00Z')
    const { event, sets } = await seedEvent(app.orm, { startAt })
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 20, label: "Zoë & O'Brien" })
    const response = await fetch(`${app.url}/gallery/${session.id}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      id: session.id,
      label: "Zoë & O'Brien",
      event: { id: event.id, slug: event.slug, name: event.name, startAt: startAt.getTime() },
      photos: session.photos.map((photo) => ({
        id: photo.id,
        url: `https://cdn.example.net/photos/${photo.storageKey}`,
        width: photo.width,
        height: photo.height,
      })),
    })
  })

  for (const [state, options] of [
    ['active', { status: 'active', photos: 0 }],
    ['cancelled', { status: 'cancelled', photos: 0 }],
    ['completed without photos', { status: 'completed', photos: 0 }],
  ] as const) {
    it(`when the session is ${state}, then 404 "no such gallery"`, async () => {
      const { sets } = await seedEvent(app.orm)
      const session = await seedSession(app.orm, sets[0]!.id, options)
      const response = await fetch(`${app.url}/gallery/${session.id}`)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'no such gallery', code: 'no_such_gallery' })
    })
  }

  it("when asked with HEAD, then the GET answer's status and headers without a body", async () => {
    const { sets } = await seedEvent(app.orm)
    const live = await seedSession(app.orm, sets[0]!.id, { status: 'completed', photos: 2 })
    const get = await fetch(`${app.url}/gallery/${live.id}`)
    const getBody = await get.text()
    const head = await fetch(`${app.url}/gallery/${live.id}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    // Per answer, not per entity: the date, the connection, and the request's own id.
    const entity = (headers: Headers) =>
      [...headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id'].includes(name))
    expect(entity(head.headers)).toEqual(entity(get.headers))
    expect(getBody).not.toBe('')
    expect(await head.text()).toBe('')
    const missing = await fetch(`${app.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA`, { method: 'HEAD' })
    expect(missing.status).toBe(404)
  })

  it('when no session has the id, then 404 "no such gallery" after one query: the one handler reads it once (a second handler read it again)', async () => {
    app.queries.length = 0
    const response = await fetch(`${app.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such gallery', code: 'no_such_gallery' })
    expect(app.queries).toHaveLength(1)
  })

  it('when the id is not one we hand out (a space, a dot, 65 characters), then 404 "no such gallery"', async () => {
    for (const id of ['bad%20id', 'a.b', 'a'.repeat(65)]) {
      const response = await fetch(`${app.url}/gallery/${id}`)
      expect([id, response.status, await response.json()]).toEqual([id, 404, { error: 'no such gallery', code: 'no_such_gallery' }])
    }
  })

  it('when the id holds a control character or runs past 200 characters, then 400 in the validator shape', async () => {
    for (const id of ['a%00b', 'a'.repeat(201)]) {
      const response = await fetch(`${app.url}/gallery/${id}`)
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.success).toBe(false)
      expect(JSON.parse(body.error.message)).toEqual([expect.objectContaining({ path: ['sessionId'] })])
    }
  })
})
