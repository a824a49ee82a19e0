/**
 * Drill: the database is cut for 6 s while gallery links are being sent. The service (in this
 * process, its dispatcher on, with the default lease) reaches PostgreSQL through a TCP proxy the
 * drill controls and sends through Postmark and Twilio fakes answering in 1 s; the cut comes while
 * provider requests are in flight, so that their answers arrive while the dispatcher cannot record
 * them.
 *
 * Asserts: once the database is back, every message is sent, and exactly once: the dispatcher keeps
 * trying to record each send until the record lands (before its lease runs out), so that no message
 * whose send was taken is sent again. Prints the messages, those in flight at the cut, those sent
 * once, twice and not at all, and the time from the restore to the last record.
 */
import { createClient, uploadPhotos } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { openOrm, type Orm } from '@photobooth/server/db/orm'
import { createLogger } from '@photobooth/server/logger'
import { DEFAULT_DISPATCHER_SETTINGS } from '@photobooth/server/config'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { messagesOf, tally } from '../support/drill-processes.js'
import { startFakePostmark, startFakeTwilio, type FakeProvider } from '../support/fake-providers.js'
import { createTestBoothKey, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcp-proxy.js'
import { until } from '../support/until.js'
import { notJson } from '../support/drill-output.js'

const SESSIONS = 16
const CUT_MS = 6_000
const LATENCY_MS = 1_000
const IP_HEADER = 'x-drill-client-ip'
/** Each channel's pace: its 32 messages take 4 s. */
const PER_SECOND = 8
/** The dispatcher's default lease. */
const LEASE_MS = DEFAULT_DISPATCHER_SETTINGS.leaseMs

const databases = scratchDatabases('outage_db_delivery')
let proxy: TcpProxy
let postmark: FakeProvider
let twilio: FakeProvider
let app: TestServer
let orm: Orm
const logLines: string[] = []

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
      // The default dispatcher (its lease, its retries), looking for due messages often, at a pace
      // that keeps sends going for a few seconds after the last completion.
      delivery: {
        ...env.delivery,
        dispatch: true,
        dispatcher: { ...env.delivery.dispatcher, intervalMs: 200, perSecond: { email: PER_SECOND, sms: PER_SECOND } },
      },
    },
    { logger: createLogger({ level: 'info', write: (line) => void logLines.push(line) }) },
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

describe('the database is cut while links are sent', () => {
  it(
    'when the database is cut for 6 s with provider requests in flight, then every message is sent exactly once after it is back',
    async () => {
      postmark.latencyMs = LATENCY_MS
      twilio.latencyMs = LATENCY_MS
      const setId = (await seedEvent(orm)).sets[0]!.id
      const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app), retry: false })
      const images = [makeJpeg(32, 24, 1)]
      await Promise.all(
        Array.from({ length: SESSIONS }, async (_, index) => {
          const kiosk = createClient({ baseUrl: app.url, retry: false, headers: { [IP_HEADER]: `10.6.0.${index + 1}` } })
          const guests = [1, 2].map((n) => ({
            name: `Cut${index} Guest${n}`,
            email: `cut-${index}-${n}@example.org`,
            phone: `+1415558${String(index * 10 + n).padStart(4, '0')}`,
          }))
          const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests } })
          await uploadPhotos(booth, session.id, images, { retry: false })
        }),
      )
      // Both channels have requests waiting for their answer: then the cut.
      const waiting = (fake: FakeProvider) => fake.requests.filter((request) => !fake.accepted.includes(request))
      await until(
        async () => [waiting(postmark).length, waiting(twilio).length],
        (counts) => counts.every((count) => count > 0),
      )
      const inFlight = {
        email: messagesOf(postmark, 'email', waiting(postmark)).length,
        sms: messagesOf(twilio, 'sms', waiting(twilio)).length,
      }
      proxy.cut()
      await new Promise((resolve) => setTimeout(resolve, CUT_MS))
      const restoredAt = Date.now()
      proxy.restore()

      const outbox = await until(
        () =>
          orm.em
            .fork()
            .execute<{ channel: 'email' | 'sms'; recipient: string; status: string; attempts: number }[]>(
              'select channel, recipient, status, attempts from outbox_message',
            ),
        (rows) => rows.length === SESSIONS * 4 && rows.every((row) => row.status === 'sent'),
        // At worst a claim whose answer the cut lost holds its messages until their lease ends (60 s).
        LEASE_MS + 10_000,
      ).catch((error: Error) => error)
      const settledMs = Date.now() - restoredAt
      await Promise.all([postmark.replied(), twilio.replied()])

      const rows =
        outbox instanceof Error
          ? await orm.em
              .fork()
              .execute<{ channel: string; recipient: string; status: string }[]>('select channel, recipient, status from outbox_message')
          : outbox
      const sent = tally([...messagesOf(postmark, 'email'), ...messagesOf(twilio, 'sms')])
      const counts = rows.map((row) => sent.get(`${row.channel} ${row.recipient}`) ?? 0)
      const statuses: Record<string, number> = {}
      for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1
      console.log(
        `database cut during delivery: ${rows.length} messages, in flight at the cut ${JSON.stringify(inFlight)}, cut ${CUT_MS} ms; ` +
          `provider requests ${postmark.requests.length + twilio.requests.length}; sent once ${counts.filter((count) => count === 1).length}, ` +
          `twice or more ${counts.filter((count) => count > 1).length}, not at all ${counts.filter((count) => count === 0).length}; ` +
          `${outbox instanceof Error ? `not all recorded sent within ${LEASE_MS + 10_000} ms of the restore (${JSON.stringify(statuses)})` : `all recorded sent ${settledMs} ms after the restore`}`,
      )

      expect(inFlight.email + inFlight.sms, 'the cut came with sends in flight').toBeGreaterThan(0)
      expect(
        [...sent.entries()].filter(([, count]) => count !== 1),
        'sent more than once',
      ).toEqual([])
      if (outbox instanceof Error) throw outbox
      expect([...sent.keys()].sort()).toEqual(rows.map((row) => `${row.channel} ${row.recipient}`).sort())
      expect(notJson(logLines)).toEqual([])
    },
    LEASE_MS + 40_000,
  )
})
