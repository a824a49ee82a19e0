/**
 * Drill: the message providers misbehave while gallery links go out. The service (in this process,
 * its dispatcher on) sends through the Postmark and Twilio fakes, which first answer 500s (a
 * provider's outage), then 429s (throttled, no Retry-After), and answer everything slowly (3 s, a
 * provider under load, well within the 15 s the service waits).
 *
 * Asserts: in the end every message is sent exactly once (what each provider took: `delivered`),
 * none twice and none lost, and every outbox row is `sent`. The retry pace is shortened (the
 * drill is about the count, not the backoff's length). Prints the provider requests, their
 * answers by status, the messages sent once, twice and not at all, and the time to drain.
 */
import { createClient, uploadPhotos } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { tally } from '../support/drill-processes.js'
import {
  POSTMARK_RATE_LIMITED,
  SERVER_ERROR,
  startFakePostmark,
  startFakeTwilio,
  TWILIO_TOO_MANY_REQUESTS,
  type FakeProvider,
  type Reply,
} from '../support/fake-providers.js'
import { createTestBoothKey, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { until } from '../support/until.js'

const SESSIONS = 12
const IP_HEADER = 'x-drill-client-ip'
const SLOW_MS = 3_000
/** What each provider answers first, in order, before it answers with success (after SLOW_MS). */
const FAULTS: { postmark: Reply[]; twilio: Reply[] } = {
  postmark: [SERVER_ERROR, SERVER_ERROR, { ...SERVER_ERROR, delayMs: SLOW_MS }, POSTMARK_RATE_LIMITED, POSTMARK_RATE_LIMITED],
  twilio: [
    SERVER_ERROR,
    SERVER_ERROR,
    { ...SERVER_ERROR, delayMs: SLOW_MS },
    TWILIO_TOO_MANY_REQUESTS,
    TWILIO_TOO_MANY_REQUESTS,
    SERVER_ERROR,
  ],
}

const databases = scratchDatabases('outage_providers')
let postmark: FakeProvider
let twilio: FakeProvider
let app: TestServer

beforeAll(async () => {
  postmark = await startFakePostmark()
  twilio = await startFakeTwilio()
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
  app = await startTestServer({
    databaseUrl: await databases.create(),
    rateLimits: { windowMs: 60_000, clientIpHeader: IP_HEADER },
    // The links go at completion: the copies are not what this drill is about.
    copies: { ...env.copies, linkWaitMs: 0 },
    delivery: {
      ...env.delivery,
      dispatch: true,
      dispatcher: { ...env.delivery.dispatcher, intervalMs: 200, baseDelayMs: 200, maxDelayMs: 2_000 },
    },
  })
})

afterAll(async () => {
  await app?.stop()
  await Promise.all([postmark?.close(), twilio?.close()])
  await databases.dropAll()
})

describe('providers that fail, throttle and answer slowly', () => {
  it('when Postmark and Twilio answer 500s, 429s and take 3 s, then every message is sent exactly once in the end', async () => {
    postmark.queue(...FAULTS.postmark)
    twilio.queue(...FAULTS.twilio)
    postmark.latencyMs = SLOW_MS
    twilio.latencyMs = SLOW_MS

    const setId = (await seedEvent(app.orm)).sets[0]!.id
    const booth = createClient({ baseUrl: app.url, boothKey: await createTestBoothKey(app), retry: false })
    const images = [makeJpeg(32, 24, 1)]
    const startedAt = Date.now()
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, index) => {
        const kiosk = createClient({ baseUrl: app.url, retry: false, headers: { [IP_HEADER]: `10.7.0.${index + 1}` } })
        const guests = [1, 2].map((n) => ({
          name: `Provider${index} Guest${n}`,
          email: `providers-${index}-${n}@example.org`,
          phone: `+1415557${String(index * 10 + n).padStart(4, '0')}`,
        }))
        const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests } })
        await uploadPhotos(booth, session.id, images, { retry: false })
      }),
    )

    const outbox = await until(
      () =>
        app.orm.em
          .fork()
          .execute<{ channel: 'email' | 'sms'; recipient: string; status: string; attempts: number }[]>(
            'select channel, recipient, status, attempts from outbox_message',
          ),
      (rows) => rows.length === SESSIONS * 4 && rows.every((row) => row.status === 'sent'),
      40_000,
    ).catch((error: Error) => error)
    const drainedMs = Date.now() - startedAt
    await Promise.all([postmark.replied(), twilio.replied()])

    const delivered = tally([
      ...postmark.delivered.map((recipient) => ({ channel: 'email' as const, recipient, text: '', path: '' })),
      ...twilio.delivered.map((recipient) => ({ channel: 'sms' as const, recipient, text: '', path: '' })),
    ])
    const rows =
      outbox instanceof Error
        ? await app.orm.em
            .fork()
            .execute<{ channel: string; recipient: string; status: string; attempts: number }[]>(
              'select channel, recipient, status, attempts from outbox_message',
            )
        : outbox
    const owed = rows.map((row) => `${row.channel} ${row.recipient}`)
    const counts = owed.map((key) => delivered.get(key) ?? 0)
    const statuses = (fake: FakeProvider, faults: Reply[]) => {
      const byStatus: Record<number, number> = {}
      // The queued faults were the first answers; every other request was answered with success.
      for (const [index] of fake.requests.entries()) {
        const status = faults[index]?.status ?? (fake === twilio ? 201 : 200)
        byStatus[status] = (byStatus[status] ?? 0) + 1
      }
      return JSON.stringify(byStatus)
    }
    console.log(
      `providers: ${rows.length} messages; Postmark ${postmark.requests.length} requests ${statuses(postmark, FAULTS.postmark)}, ` +
        `Twilio ${twilio.requests.length} requests ${statuses(twilio, FAULTS.twilio)}; longest wait ${SLOW_MS} ms (the fakes'); ` +
        `sent once ${counts.filter((count) => count === 1).length}, twice or more ${counts.filter((count) => count > 1).length}, not at all ${counts.filter((count) => count === 0).length}; ` +
        `drained ${outbox instanceof Error ? 'never' : `in ${drainedMs} ms`} (${JSON.stringify(countBy(rows.map((row) => row.status)))}, most attempts ${Math.max(...rows.map((row) => row.attempts))})`,
    )

    if (outbox instanceof Error) throw outbox
    // Every fault was given (the drill did what it says).
    expect(postmark.requests.length).toBeGreaterThan(FAULTS.postmark.length)
    expect(twilio.requests.length).toBeGreaterThan(FAULTS.twilio.length)
    expect(rows).toHaveLength(SESSIONS * 4)
    expect(
      [...delivered.entries()].filter(([, count]) => count !== 1),
      'sent more than once',
    ).toEqual([])
    expect([...delivered.keys()].sort()).toEqual(owed.sort())
  }, 60_000)
})

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}
