import { connect, createServer, type AddressInfo, type Socket } from 'node:net'

import { loadSettings } from '@photobooth/server/config'
import { describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { SERVER_ERROR, startFakePostmark } from '../support/fake-providers.js'
import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, withTestServer } from '../support/harness.js'
import { until } from '../support/until.js'
import { testDatabaseUrl } from '../support/database-url.js'

const TOKEN = 'metrics-token-0123456789'
const DEFAULT_COPIES = loadSettings({}).copies

const app = withTestServer({ metricsToken: TOKEN, rateLimits: { windowMs: 60_000 } })

// A scrape that hangs fails the test here, in 5 s, rather than at the test's timeout (30 s).
const scrape = async (target = app, authorization = `Bearer ${TOKEN}`) =>
  fetch(`${target.url}/metrics`, { headers: { authorization }, signal: AbortSignal.timeout(5_000) })

/** A sample's value from the text format, by its name and exact label set ('': no labels, no braces). */
function sample(text: string, name: string, labels: string): number | undefined {
  const prefix = labels ? `${name}{${labels}} ` : `${name} `
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

/**
 * A TCP proxy in front of PostgreSQL that can stop forwarding, both ways, with its connections left
 * open: a database that no longer answers (a stuck primary, a partition), not one that refuses.
 */
async function startStallingProxy(databaseUrl: string) {
  const target = new URL(databaseUrl)
  const sockets = new Set<Socket>()
  let stalled = false
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from)
      // Paused before its data listener, which would otherwise start the flow.
      if (stalled) from.pause()
      from.on('data', (chunk) => to.write(chunk))
      from.on('close', () => {
        sockets.delete(from)
        to.destroy()
      })
      from.on('error', () => to.destroy())
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = new URL(databaseUrl)
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: url.toString(),
    stall() {
      stalled = true
      sockets.forEach((socket) => socket.pause())
    },
    resume() {
      stalled = false
      sockets.forEach((socket) => socket.resume())
    },
    async close() {
      sockets.forEach((socket) => socket.destroy())
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

describe('GET /metrics', () => {
  it('when METRICS_TOKEN is not set (the default), then there is no /metrics', async () => {
    const plain = await startTestServer()
    try {
      const response = await scrape(plain)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'Not Found', code: 'not_found' })
    } finally {
      await plain.stop()
    }
  })

  it('when the scraper sends no token or a wrong one, then 401 with the scheme to use, and no figure', async () => {
    for (const authorization of ['', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN, `Basic ${TOKEN}`, `Bearer${TOKEN}`]) {
      const response = await scrape(app, authorization)
      expect(response.status, authorization).toBe(401)
      expect(response.headers.get('www-authenticate'), authorization).toBe('Bearer realm="metrics"')
      expect(await response.text()).not.toContain('photobooth_')
    }
  })

  it('when the scraper spells the scheme in another case (RFC 9110: case-insensitive), then the token is accepted', async () => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER ${TOKEN}`, `bEaReR ${TOKEN}`]) {
      expect((await scrape(app, authorization)).status, authorization).toBe(200)
    }
  })

  it('when an instance has just started, then each outbox count, delivery failure and limit refusal it can report is there at zero', async () => {
    // A database of its own: an empty outbox.
    const databases = scratchDatabases('metrics')
    const fresh = await startTestServer({ databaseUrl: await databases.create(), metricsToken: TOKEN })
    try {
      const text = await (await scrape(fresh)).text()
      for (const channel of ['email', 'sms']) {
        for (const status of ['pending', 'sent', 'failed']) {
          expect(sample(text, 'photobooth_outbox_messages', `channel="${channel}",status="${status}"`), `${channel} ${status}`).toBe(0)
        }
        for (const kind of ['transient', 'permanent']) {
          expect(sample(text, 'photobooth_delivery_failures_total', `channel="${channel}",kind="${kind}"`), `${channel} ${kind}`).toBe(0)
        }
      }
      for (const limit of ['register', 'track', 'contact', 'zip', 'sign-in']) {
        expect(sample(text, 'photobooth_rate_limit_refusals_total', `limit="${limit}"`), limit).toBe(0)
      }
      expect(sample(text, 'photobooth_outbox_read_failures_total', '')).toBe(0)
      expect(sample(text, 'photobooth_photos', 'copies="queued"')).toBe(0)
      for (const outcome of ['ready', 'failed', 'retried'])
        expect(sample(text, 'photobooth_photo_copies_seconds_count', `outcome="${outcome}"`), outcome).toBe(0)
      // What an on-call's alerts read (docs/alerts.yml): there from the start, at zero.
      for (const channel of ['email', 'sms'])
        expect(sample(text, 'photobooth_outbox_oldest_pending_seconds', `channel="${channel}"`), channel).toBe(0)
      for (const outcome of ['retried', 'abandoned'])
        expect(sample(text, 'photobooth_delivery_record_failures_total', `outcome="${outcome}"`), outcome).toBe(0)
      for (const dependency of ['database', 'storage', 'redis'])
        expect(sample(text, 'photobooth_dependency_errors_total', `dependency="${dependency}"`), dependency).toBe(0)
    } finally {
      await fresh.stop()
      await databases.dropAll()
    }
  })

  it('when a gallery link has waited ten minutes and /readyz was probed, then the oldest-pending age and readiness say so', async () => {
    const databases = scratchDatabases('metrics')
    const fresh = await startTestServer({ databaseUrl: await databases.create(), metricsToken: TOKEN })
    try {
      const gallery = await makeLiveGallery(fresh, { guests: [{ name: 'Ada', email: 'ada@example.org' }] })
      await fresh.orm.em
        .fork()
        .execute(`update outbox_message set created_at = now() - interval '10 minutes' where session_id = ?`, [gallery.sessionId])
      expect((await fetch(`${fresh.url}/readyz`)).status).toBe(200)
      const text = await (await scrape(fresh)).text()
      expect(sample(text, 'photobooth_outbox_oldest_pending_seconds', 'channel="email"')).toBeGreaterThanOrEqual(600)
      expect(sample(text, 'photobooth_outbox_oldest_pending_seconds', 'channel="sms"')).toBe(0)
      expect(sample(text, 'photobooth_ready', '')).toBe(1)
      expect(sample(text, 'photobooth_dependency_up', 'dependency="database"')).toBe(1)
      expect(sample(text, 'photobooth_dependency_up', 'dependency="storage"')).toBe(1)
    } finally {
      await fresh.stop()
      await databases.dropAll()
    }
  })

  it('when PostgreSQL stops answering, then a scrape still answers within about a second, the outbox left out and the failure counted', async () => {
    const proxy = await startStallingProxy(testDatabaseUrl())
    // Without the copies worker, whose look every 2 s would take a connection of the stalled pool too.
    const stalling = await startTestServer({ databaseUrl: proxy.url, metricsToken: TOKEN, copies: { ...DEFAULT_COPIES, work: false } })
    try {
      expect(sample(await (await scrape(stalling)).text(), 'photobooth_outbox_read_failures_total', '')).toBe(0)
      proxy.stall()
      const held: number[] = []
      for (const failures of [1, 2]) {
        const started = Date.now()
        const response = await scrape(stalling)
        expect(response.status).toBe(200)
        const text = await response.text()
        expect(Date.now() - started).toBeLessThan(2_000)
        expect(text).not.toMatch(/^photobooth_outbox_messages\{/m)
        expect(text).not.toMatch(/^photobooth_photos\{/m)
        expect(sample(text, 'photobooth_outbox_read_failures_total', '')).toBe(failures)
        expect(text).toContain('process_resident_memory_bytes')
        held.push(
          sample(text, 'photobooth_db_pool_connections', 'state="used"')! +
            sample(text, 'photobooth_db_pool_connections', 'state="pending"')!,
        )
      }
      // The second scrape waited on the first one's read rather than taking another connection.
      expect(held[1]).toBe(held[0])
      proxy.resume()
      expect(await (await scrape(stalling)).text()).toMatch(/^photobooth_outbox_messages\{/m)
    } finally {
      proxy.resume()
      await stalling.stop()
      await proxy.close()
    }
  })

  it('when galleries are read and zipped, limits refuse and links are queued, then the figures say so, by route pattern, status, limit and state', async () => {
    const gallery = await makeLiveGallery(app, { names: ['Ada Lovelace'] })
    await copiesSettled(app, gallery.sessionId)
    for (let i = 0; i < 3; i++) await (await fetch(`${app.url}/gallery/${gallery.sessionId}`)).arrayBuffer()
    await (await fetch(`${app.url}/gallery/no-such-gallery`)).arrayBuffer()
    const zip = Buffer.from(await (await fetch(`${app.url}/gallery/${gallery.sessionId}/zip`)).arrayBuffer())
    // The contact form's limit is 60 a minute per client: the 61st is refused.
    const statuses: number[] = []
    for (let i = 0; i < 61; i++)
      statuses.push(
        (await fetch(`${app.url}/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
      )
    expect(statuses.at(-1)).toBe(429)

    const response = await scrape()
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    expect(sample(text, 'photobooth_http_request_duration_seconds_count', 'method="GET",route="/gallery/:sessionId",status="200"')).toBe(3)
    expect(sample(text, 'photobooth_http_request_duration_seconds_count', 'method="GET",route="/gallery/:sessionId",status="404"')).toBe(1)
    expect(sample(text, 'photobooth_zip_bytes_total', '')).toBe(zip.length)
    expect(sample(text, 'photobooth_rate_limit_refusals_total', 'limit="contact"')).toBe(1)
    expect(sample(text, 'photobooth_outbox_messages', 'channel="email",status="pending"')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'photobooth_db_pool_connections', 'state="used"')).toBeGreaterThanOrEqual(0)
    // The gallery's three photos had their copies made by this instance.
    expect(sample(text, 'photobooth_photo_copies_seconds_count', 'outcome="ready"')).toBeGreaterThanOrEqual(3)
    expect(sample(text, 'photobooth_photos', 'copies="queued"')).toBeGreaterThanOrEqual(0)
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
        email: {
          kind: 'postmark',
          serverToken: 'token',
          from: 'Photos <photos@example.com>',
          messageStream: 'outbound',
          apiUrl: postmark.url,
          timeoutMs: 2_000,
        },
        dispatcher: { intervalMs: 50, batchSize: 10, retryForMs: 3_600_000, baseDelayMs: 20, maxDelayMs: 100, leaseMs: 5_000 },
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
