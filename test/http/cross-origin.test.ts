import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, startTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, type StaffSession } from '../support/staff.js'

const SITE = 'https://photos.example.com'
const OTHER = 'https://elsewhere.example'

let app: TestServer
let closed: TestServer
let gallery: LiveGallery
let boothKey: string
let staff: StaffSession
beforeAll(async () => {
  app = await startTestServer({ corsOrigins: [SITE] })
  closed = await startTestServer()
  gallery = await makeLiveGallery(app)
  boothKey = await createTestBoothKey(app)
  staff = await signedInStaff(app)
})
afterAll(async () => {
  await app?.stop()
  await closed?.stop()
})

const preflight = (server: TestServer, path: string, origin: string, method = 'GET', headers = 'x-photobooth-sdk') =>
  fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  })

describe('CORS for a gallery site on another origin (CORS_ORIGINS)', () => {
  it('when a configured origin asks before reading a public route, then the preflight answers 204 with what it may send', async () => {
    const paths = [
      `/gallery/${gallery.sessionId}`,
      `/gallery/${gallery.sessionId}/zip`,
      `/gallery/${gallery.sessionId}/photos/${gallery.photos[0]!.id}/download`,
      '/events/demo/sets/x',
      '/gallery/events/x',
    ]
    for (const path of paths) {
      const response = await preflight(app, path, SITE)
      expect(response.status, path).toBe(204)
      expect(response.headers.get('access-control-allow-origin'), path).toBe(SITE)
      expect(response.headers.get('access-control-allow-headers'), path).toBe('content-type,idempotency-key,x-photobooth-sdk,x-request-id')
      expect(response.headers.get('vary'), path).toMatch(/Origin/)
    }
    // A browser kiosk's registration (keyed by the SDK) and the business's contact form post JSON.
    for (const path of ['/track', '/sets/x/sessions', '/contact']) {
      const post = await preflight(app, path, SITE, 'POST', 'content-type,idempotency-key,x-photobooth-sdk')
      expect([post.status, post.headers.get('access-control-allow-origin')], path).toEqual([204, SITE])
    }
  })

  it('when a configured origin reads a gallery or posts a beacon, then the answers carry its CORS headers and expose the request id and file name', async () => {
    const read = await fetch(`${app.url}/gallery/${gallery.sessionId}`, { headers: { origin: SITE } })
    expect(read.status).toBe(200)
    expect(read.headers.get('access-control-allow-origin')).toBe(SITE)
    expect(read.headers.get('access-control-expose-headers')).toBe('content-disposition,content-length,x-request-id,idempotent-replayed')
    const zip = await fetch(`${app.url}/gallery/${gallery.sessionId}/zip`, { headers: { origin: SITE } })
    expect([zip.status, zip.headers.get('access-control-allow-origin')]).toEqual([200, SITE])
    await zip.arrayBuffer()
    const beacon = await fetch(`${app.url}/track`, {
      method: 'POST',
      headers: { origin: SITE, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'view', sessionId: gallery.sessionId }),
    })
    expect([beacon.status, beacon.headers.get('access-control-allow-origin')]).toEqual([204, SITE])
  })

  it('when the booth or staff routes are asked from that origin, then no CORS header and no preflight', async () => {
    const answers = [
      await fetch(`${app.url}/booth/events`, { headers: { origin: SITE, authorization: `Bearer ${boothKey}` } }),
      await fetch(`${app.url}/staff/events`, { headers: { ...staff.headers, origin: SITE } }),
    ]
    for (const answer of answers) expect(answer.headers.get('access-control-allow-origin')).toBeNull()
    for (const path of ['/booth/events', '/staff/events', `/booth/sessions/${gallery.sessionId}/complete`]) {
      const response = await preflight(app, path, SITE, 'POST')
      expect(response.status, path).toBe(404)
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull()
    }
  })

  it('when another origin asks, or none is configured (the default), then no CORS header and the preflight is the usual 404', async () => {
    for (const [server, origin] of [
      [app, OTHER],
      [closed, SITE],
    ] as const) {
      const response = await preflight(server, `/gallery/${gallery.sessionId}`, origin)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'Not Found', code: 'not_found' })
      const read = await fetch(`${server.url}/gallery/nope`, { headers: { origin } })
      expect(read.headers.get('access-control-allow-origin')).toBeNull()
    }
  })
})
