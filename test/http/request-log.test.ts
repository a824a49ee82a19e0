import { once } from 'node:events'
import { connect } from 'node:net'

import { createLogger } from '@photobooth/server/logger'
import { describe, expect, it } from 'vitest'

import { makeLiveGallery } from '../support/gallery-fixture.js'
import { seedEvent, withTestServer } from '../support/harness.js'

/** The lines a log shipper would receive, parsed. */
const lines: string[] = []
const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>)

const METRICS_TOKEN = 'request-log-metrics-token'
const app = withTestServer(
  { requestIdHeader: 'X-Edge-Request-Id', metricsToken: METRICS_TOKEN },
  { logger: createLogger({ write: (line) => void lines.push(line) }) },
)

/** The request line of the answer with this id, once its connection has closed. */
async function requestLine(id: string) {
  await expect
    .poll(() => records().find((record) => record.message === 'request' && record.requestId === id), { timeout: 5_000 })
    .toBeDefined()
  return records().find((record) => record.message === 'request' && record.requestId === id)!
}

describe('one structured line per request', () => {
  it('when a gallery is read, then its line holds method, route pattern, status, duration, bytes and request id, and nothing about the client', async () => {
    const gallery = await makeLiveGallery(app, { names: ['Ada Lovelace'] })
    lines.length = 0
    const response = await fetch(`${app.url}/gallery/${gallery.sessionId}?utm_source=sms`, {
      headers: { 'x-forwarded-for': '203.0.113.9' },
    })
    const body = await response.arrayBuffer()
    const line = await requestLine(response.headers.get('x-request-id')!)
    expect(line).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      message: 'request',
      requestId: response.headers.get('x-request-id'),
      method: 'GET',
      route: '/gallery/:sessionId',
      status: 200,
      durationMs: expect.any(Number),
      bytes: body.byteLength,
    })
    const text = lines.join('')
    for (const secret of [gallery.sessionId, 'utm_source', '203.0.113.9', '127.0.0.1', 'Ada']) expect(text).not.toContain(secret)
  })

  it('when a JSON route is asked with HEAD, then its line says HEAD with no body bytes, and so does the metric', async () => {
    const { event, sets } = await seedEvent(app.orm)
    lines.length = 0
    const response = await fetch(`${app.url}/events/${event.slug}/sets/${sets[0]!.slug}`, { method: 'HEAD' })
    expect(response.status).toBe(200)
    const line = await requestLine(response.headers.get('x-request-id')!)
    expect(line).toMatchObject({ method: 'HEAD', status: 200, bytes: 0 })
    const metrics = await (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
    expect(metrics).toMatch(/photobooth_http_request_duration_seconds_count\{method="HEAD",route="[^"]*",status="200"\} 1/)
  })

  it('when a booth or staff route refuses a request (401), then its line names the route as it is, not under its mount path twice', async () => {
    lines.length = 0
    const booth = await fetch(`${app.url}/booth/events`)
    expect(booth.status).toBe(401)
    expect(await requestLine(booth.headers.get('x-request-id')!)).toMatchObject({ route: '/booth/events', status: 401 })
    const staff = await fetch(`${app.url}/staff/events`)
    expect(staff.status).toBe(401)
    expect(await requestLine(staff.headers.get('x-request-id')!)).toMatchObject({ route: '/staff/events', status: 401 })
  })

  it('when a presigned upload is sent, then its line has the route pattern, not the key or the signature', async () => {
    lines.length = 0
    const response = await fetch(`${app.url}/photos/sessions/abc/def.jpg?expires=1&signature=SECRET-SIGNATURE`, {
      method: 'PUT',
      body: 'x',
      headers: { 'content-type': 'image/jpeg' },
    })
    await response.arrayBuffer()
    const line = await requestLine(response.headers.get('x-request-id')!)
    expect(line).toMatchObject({ method: 'PUT', status: response.status, route: '/photos/*key' })
    expect(lines.join('')).not.toMatch(/SECRET-SIGNATURE|def\.jpg/)
  })

  it('when nothing answers the path, then the route is "unmatched" and the page route names its pattern', async () => {
    lines.length = 0
    const missing = await fetch(`${app.url}/no/such/path`)
    await missing.arrayBuffer()
    expect(await requestLine(missing.headers.get('x-request-id')!)).toMatchObject({ route: 'unmatched', status: 404 })
    const page = await fetch(`${app.url}/g/AAAAAAAAAAAAAAAAAAAAAA`, { headers: { 'accept-encoding': 'gzip' } })
    await page.arrayBuffer()
    expect(await requestLine(page.headers.get('x-request-id')!)).toMatchObject({ route: '/g/:sessionId', status: 404 })
    // A page under /g that is none, and a preflight nothing answers: a pattern each, never a list or a catch-all.
    const asset = await fetch(`${app.url}/g/assets/nope.css`)
    await asset.arrayBuffer()
    expect(await requestLine(asset.headers.get('x-request-id')!)).toMatchObject({ route: '/g/{*rest}', status: 404 })
    const preflight = await fetch(`${app.url}/anything`, { method: 'OPTIONS' })
    await preflight.arrayBuffer()
    expect(await requestLine(preflight.headers.get('x-request-id')!)).toMatchObject({ route: 'unmatched', status: 404 })
  })

  it('when the client goes away before any answer, then its line says 499 and aborted, not 200', async () => {
    const { sets } = await seedEvent(app.orm)
    lines.length = 0
    // A registration whose body never arrives in full: the service waits for it until the client leaves.
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1')
    await once(socket, 'connect')
    const received = once(app.server, 'request')
    socket.write(
      `POST /sets/${sets[0]!.id}/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Edge-Request-Id: 0b7e3c1a-5f2d-4e8b-9a6c-1d2e3f4a5b6c\r\n\r\n{"guests":`,
    )
    await received
    socket.destroy()
    expect(await requestLine('0b7e3c1a-5f2d-4e8b-9a6c-1d2e3f4a5b6c')).toMatchObject({
      method: 'POST',
      route: '/sets/:setId/sessions',
      status: 499,
      aborted: true,
      bytes: 0,
    })
  })

  it('when the edge sends its own request id, then that id is the answer’s and every line of the request carries it', async () => {
    const EDGE_ID = '5a1f0e2d-8c3b-4a79-b6e5-0f1e2d3c4b5a'
    lines.length = 0
    const response = await fetch(`${app.url}/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-edge-request-id': EDGE_ID },
      body: JSON.stringify({ fields: { Name: 'Ada', Email: 'ada@example.org', Message: 'Hello' } }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-request-id')).toBe(EDGE_ID)
    await requestLine(EDGE_ID)
    const ofRequest = records().filter((record) => record.requestId === EDGE_ID)
    // The console mailer's line, logged in the middle of the request, and the request's own.
    expect(ofRequest.map((record) => record.message)).toEqual(['contact form', 'request'])
  })
})
