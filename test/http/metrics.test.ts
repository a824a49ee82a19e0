import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { SERVER_ERROR, startFakePostmark } from '../support/fake-providers.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { until } from '../support/until.js'

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

  it('when a gallery link fails once and is then accepted, then the failure and the latency from completion are counted by channel', async () => {
    // A database of its own: the dispatcher sends only this test's messages.
    const databases = scratchDatabases('metrics')
    const postmark = await startFakePostmark()
    const sending = await startTestServer({
      databaseUrl: await databases.create(),
      metricsToken: TOKEN,
      delivery: {
        dispatch: true,
        email: { kind: 'postmark', serverToken: 'token', from: 'Photos <photos@example.com>', messageStream: 'outbound', apiUrl: postmark.url, timeoutMs: 2_000 },
        dispatcher: { intervalMs: 50, batchSize: 10, maxAttempts: 6, baseDelayMs: 20, maxDelayMs: 100, leaseMs: 5_000 },
      },
    })
    try {
      postmark.queue(SERVER_ERROR)
      await makeLiveGallery(sending, { guests: [{ name: 'Ada', email: 'ada@example.org' }] })
      await until(
        () => sending.orm.em.fork().execute<{ status: string }[]>('select status from outbox_message'),
        (rows) => rows.length === 1 && rows[0]!.status === 'sent',
      )
      const text = await (await scrape(sending)).text()
      expect(sample(text, 'photobooth_delivery_failures_total', 'channel="email",kind="transient"')).toBe(1)
      expect(sample(text, 'photobooth_delivery_latency_seconds_count', 'channel="email"')).toBe(1)
      expect(sample(text, 'photobooth_outbox_messages', 'channel="email",status="sent"')).toBe(1)
    } finally {
      await sending.stop()
      await postmark.close()
      await databases.dropAll()
    }
  })
})
