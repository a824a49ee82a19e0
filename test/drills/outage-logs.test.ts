/**
 * Drill: what the log holds when the database fails mid-work. The service runs in this process
 * with a logger that keeps every line (level `trace`), reaches PostgreSQL through a TCP proxy the
 * drill controls, and sends links through Postmark and Twilio fakes answering in 1 s. One guest,
 * with a name, email and phone no one else has, registers in three sessions that are completed;
 * then, while registrations of that guest, reads of the galleries, downloads and the guest's
 * deliveries are in flight, the database is cut (3 s) and then stalled (7 s, past the statement
 * timeout), and restored.
 *
 * Asserts: every line of the log parses as JSON, and not one holds the guest's email, phone
 * (whole, or its last seven digits), first or last name, or any of the sessions' ids (a gallery's
 * secret link). Prints the lines logged, by level, the occurrences found, and whether the guest's
 * links were all sent within 10 s of the restore (outage-database-delivery.test.ts asserts that).
 */
import { randomBytes, randomInt } from 'node:crypto'

import { createClient, uploadPhotos } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { openOrm, type Orm } from '@photobooth/server/db/orm'
import { createLogger } from '@photobooth/server/logger'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { messagesOf } from '../support/drill-processes.js'
import { startFakePostmark, startFakeTwilio, type FakeProvider } from '../support/fake-providers.js'
import { createTestBoothKey, postJson, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcp-proxy.js'
import { until } from '../support/until.js'
import { isJson } from '../support/drill-output.js'

const IP_HEADER = 'x-drill-client-ip'
const CUT_MS = 3_000
const STALL_MS = 7_000

/** Letters only, as names are: a first and last name no other line could hold by chance. */
const letters = (length: number) => Array.from({ length }, () => 'bcdfghjklmnpqrstvwxz'[randomInt(0, 20)]).join('')
const secret = {
  firstName: `Quil${letters(8)}`,
  lastName: `Varn${letters(8)}`,
  email: `q.${randomBytes(6).toString('hex')}@example.org`,
  phone: `+1415${String(randomInt(2_000_000, 9_999_999))}`,
}

const databases = scratchDatabases('outage_logs')
let proxy: TcpProxy
let postmark: FakeProvider
let twilio: FakeProvider
let app: TestServer
let orm: Orm
const logged: string[] = []

beforeAll(async () => {
  postmark = await startFakePostmark()
  twilio = await startFakeTwilio()
  const directUrl = await databases.create()
  proxy = await startTcpProxy(targetOf(directUrl))
  const env = loadSettings({
    MODE: 'development',
    POSTMARK_SERVER_TOKEN: 'postmark-token',
    POSTMARK_FROM: 'Photos <photos@example.com>',
    POSTMARK_API_URL: postmark.url,
    TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
    TWILIO_AUTH_TOKEN: 'twilio-token',
    TWILIO_FROM: '+15005550006',
    TWILIO_API_URL: twilio.url,
  })
  app = await startTestServer(
    {
      databaseUrl: proxy.through(directUrl),
      rateLimits: { windowMs: 60_000, clientIpHeader: IP_HEADER },
      copies: { ...env.copies, linkWaitMs: 0 },
      delivery: { ...env.delivery, dispatch: true, dispatcher: { ...env.delivery.dispatcher, intervalMs: 200 } },
    },
    { logger: createLogger({ level: 'trace', write: (line) => void logged.push(line) }) },
  )
  orm = await openOrm(directUrl)
})

afterAll(async () => {
  proxy?.restore()
  await app?.stop()
  await orm?.close()
  await proxy?.close()
  await Promise.all([postmark?.close(), twilio?.close()])
  await databases.dropAll()
})

let ip = 0
const nextIp = () => `10.4.${(++ip >> 8) & 255}.${ip & 255}`
const guest = () => ({ name: `${secret.firstName} ${secret.lastName}`, email: secret.email, phone: secret.phone })

describe('the log when the database fails mid-work', () => {
  it("when the database is cut and stalled with a guest's registrations, reads and deliveries in flight, then no line holds the guest's details or a session id, and every line is JSON", async () => {
    postmark.latencyMs = 1_000
    twilio.latencyMs = 1_000
    const setId = (await seedEvent(orm)).sets[0]!.id
    const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app), retry: false })
    const sessions: string[] = []
    const photos: string[] = []
    for (let i = 0; i < 3; i++) {
      const kiosk = createClient({ baseUrl: app.url, retry: false, headers: { [IP_HEADER]: nextIp() } })
      const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests: [guest()] } })
      sessions.push(session.id)
      photos.push((await uploadPhotos(booth, session.id, [makeJpeg(32, 24, i)], { retry: false })).photos[0]!.id)
    }

    // The load: the guest registering again and again, the galleries read, a photo downloaded.
    let running = true
    let requests = 0
    const statuses: Record<string, number> = {}
    const loop = async (ask: () => Promise<Response>) => {
      while (running) {
        requests++
        const response = await ask().catch(() => undefined)
        await response?.arrayBuffer().catch(() => undefined)
        const status = response ? String(response.status) : 'none'
        statuses[status] = (statuses[status] ?? 0) + 1
        if (running) await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    const signal = () => AbortSignal.timeout(15_000)
    const loops = [
      loop(() =>
        postJson(
          `${app.url}/sets/${setId}/sessions`,
          { guests: [guest()] },
          { headers: { 'content-type': 'application/json', [IP_HEADER]: nextIp() }, signal: signal() },
        ),
      ),
      loop(() =>
        postJson(
          `${app.url}/sets/${setId}/sessions`,
          { guests: [guest()] },
          { headers: { 'content-type': 'application/json', [IP_HEADER]: nextIp() }, signal: signal() },
        ),
      ),
      loop(() => fetch(`${app.url}/gallery/${sessions[requests % 3]}`, { signal: signal() })),
      loop(() => fetch(`${app.url}/g/${sessions[requests % 3]}`, { signal: signal() })),
      loop(() => fetch(`${app.url}/gallery/${sessions[0]}/photos/${photos[0]}/download`, { signal: signal() })),
    ]
    // The guest's deliveries are in flight (the fakes have requests without an answer): then the cut.
    await until(
      async () => postmark.requests.length - postmark.accepted.length + (twilio.requests.length - twilio.accepted.length),
      (waiting) => waiting > 0,
    )
    proxy.cut()
    await new Promise((resolve) => setTimeout(resolve, CUT_MS))
    proxy.restore()
    proxy.stall()
    await new Promise((resolve) => setTimeout(resolve, STALL_MS))
    proxy.restore()
    // Back: the load goes on until every link is recorded sent (their lines logged too), or 10 s.
    const restoredAt = Date.now()
    const sent = await until(
      () => orm.em.fork().execute<{ status: string }[]>('select status from outbox_message'),
      (rows) => rows.length > 0 && rows.every((row) => row.status === 'sent'),
      10_000,
    ).then(
      () => `all sent ${Date.now() - restoredAt} ms after the restore`,
      async () => {
        const left = await orm.em
          .fork()
          .execute<{ channel: string; link: string; status: string; attempts: number; last_error: string | null; due_in_s: number }[]>(
            "select channel, link, status, attempts, last_error, round(extract(epoch from next_attempt_at - now()))::int as due_in_s from outbox_message where status <> 'sent'",
          )
        // Whether a provider already has it (it would go twice), or it never left (held by its lease).
        const received = [...messagesOf(postmark, 'email'), ...messagesOf(twilio, 'sms')]
        const described = left.map(({ link, ...row }) => ({ ...row, atProvider: received.some((message) => message.text.includes(link)) }))
        return `not all sent 10 s after the restore: ${JSON.stringify(described)}`
      },
    )
    running = false
    await Promise.all(loops)

    const lines = logged.flatMap((chunk) => chunk.split('\n')).filter((line) => line.length > 0)
    const notJson = lines.filter((line) => !isJson(line))
    const needles = {
      email: secret.email.toLowerCase(),
      phone: secret.phone,
      'phone digits': secret.phone.slice(-7),
      'first name': secret.firstName.toLowerCase(),
      'last name': secret.lastName.toLowerCase(),
      ...Object.fromEntries(sessions.map((id, index) => [`session ${index + 1}`, id])),
    }
    const found = Object.entries(needles)
      .map(([what, needle]) => [what, lines.filter((line) => line.toLowerCase().includes(needle.toLowerCase()))] as const)
      .filter(([, hits]) => hits.length > 0)
    const levels: Record<string, number> = {}
    for (const line of lines) {
      const level = isJson(line) ? String((JSON.parse(line) as { level?: unknown }).level) : 'not JSON'
      levels[level] = (levels[level] ?? 0) + 1
    }
    console.log(
      `logs through a database cut and stall: ${requests} requests ${JSON.stringify(statuses)}, ${lines.length} lines ${JSON.stringify(levels)}, ` +
        `${notJson.length} not JSON, occurrences of the guest's details or session ids: ${found.length === 0 ? 0 : found.map(([what, hits]) => `${what} ${hits.length}`).join(', ')}; ` +
        `the guest's links: ${sent}`,
    )

    expect(notJson).toEqual([])
    expect(Object.fromEntries(found.map(([what, hits]) => [what, hits.slice(0, 3)]))).toEqual({})
    // The drill did what it says: the database's failures were logged (as errors or warnings).
    expect((levels.error ?? 0) + (levels.warn ?? 0)).toBeGreaterThan(0)
  }, 60_000)
})
