import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'

const TOKEN = 'metrics-token-0123456789'

let app: TestServer
beforeAll(async () => {
  app = await startTestServer({ metricsToken: TOKEN, rateLimits: { windowMs: 60_000 } })
})
afterAll(() => app?.stop())

const scrape = async (target = app, authorization = `Bearer ${TOKEN}`) => fetch(`${target.url}/metrics`, { headers: { authorization } })

/** A sample's value from the text format, by its name and exact label set. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

describe('GET /metrics', () => {
  it('when METRICS_TOKEN is not set (the default), then there is no /metrics', async () => {
    const plain = await startTestServer()
    try {
      const response = await scrape(plain)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'Not Found' })
    } finally {
      await plain.stop()
    }
  })

  it('when the scraper sends no token or a wrong one, then 401 and no figure', async () => {
    for (const authorization of ['', `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`]) {
      const response = await scrape(app, authorization)
      expect(response.status, authorization).toBe(401)
      expect(await response.text()).not.toContain('photobooth_')
    }
  })

  it('when galleries are read and zipped, limits refuse and links are queued, then the figures say so, by route pattern, status, limit and state', async () => {
    const gallery = await makeLiveGallery(app, { names: ['Ada Lovelace'] })
    for (let i = 0; i < 3; i++) await (await fetch(`${app.url}/gallery/${gallery.sessionId}`)).arrayBuffer()
    await (await fetch(`${app.url}/gallery/no-such-gallery`)).arrayBuffer()
    const zip = Buffer.from(await (await fetch(`${app.url}/gallery/${gallery.sessionId}/zip`)).arrayBuffer())
    // The contact form's limit is 60 a minute per client: the 61st is refused.
    const statuses: number[] = []
    for (let i = 0; i < 61; i++) statuses.push((await fetch(`${app.url}/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status)
    expect(statuses.at(-1)).toBe(429)

    const response = await scrape()
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    expect(sample(text, 'photobooth_http_request_duration_seconds_count', 'method="GET",route="/gallery/:sessionId",status="200"')).toBe(3)
    expect(sample(text, 'photobooth_http_request_duration_seconds_count', 'method="GET",route="/gallery/:sessionId",status="404"')).toBe(1)
    expect(sample(text, 'photobooth_zip_bytes_total', '')).toBeUndefined() // no labels: no braces
    expect(text).toContain(`photobooth_zip_bytes_total ${zip.length}`)
    expect(sample(text, 'photobooth_rate_limit_refusals_total', 'limit="contact"')).toBe(1)
    expect(sample(text, 'photobooth_outbox_messages', 'channel="email",status="pending"')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'photobooth_db_pool_connections', 'state="used"')).toBeGreaterThanOrEqual(0)
    expect(text).toContain('process_resident_memory_bytes')
    // No id, path or address of anyone.
    expect(text).not.toContain(gallery.sessionId)
    expect(text).not.toContain('127.0.0.1')
  })
})
