/**
 * The dispatcher at event-end volume: requests in flight per channel, the rate per channel,
 * providers' 429s, Postmark batches, several instances, and stop() with requests in flight. Real
 * PostgreSQL, the real SDKs against the fakes; waits on the fakes and the rows, never on a fixed sleep.
 */
import { createLogger } from '@photobooth/server/logger'
import { DEFAULT_DISPATCHER_SETTINGS } from '@photobooth/server/config'
import { startDispatcher, type Dispatcher, type DispatcherSettings } from '@photobooth/server/modules/messages/dispatcher'
import { createPostmarkTransport } from '@photobooth/server/modules/messages/postmark-transport'
import { createTwilioTransport } from '@photobooth/server/modules/messages/twilio-transport'
import type { Transports } from '@photobooth/server/modules/messages/transport'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import {
  POSTMARK_RATE_LIMITED,
  startFakePostmark,
  startFakeTwilio,
  TWILIO_TOO_MANY_REQUESTS,
  type FakePostmark,
  type FakeProvider,
} from '../support/fake-providers.js'
import { scratchDatabases } from '../support/databases.js'
import { makeLiveGallery, type FixtureGuest } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { until } from '../support/until.js'

const FAST: DispatcherSettings = {
  ...DEFAULT_DISPATCHER_SETTINGS,
  intervalMs: 50,
  retryForMs: 3_600_000,
  baseDelayMs: 20,
  maxDelayMs: 2_000,
  leaseMs: 10_000,
  throttleMs: 100,
}
const SID = 'AC0123456789abcdef0123456789abcdef'

let postmark: FakePostmark
let twilio: FakeProvider
let app: TestServer
const databases = scratchDatabases('volume')
const dispatchers: Dispatcher[] = []

beforeAll(async () => {
  postmark = await startFakePostmark()
  twilio = await startFakeTwilio()
  // Completions only: the dispatchers of each test are started by the test. A database of the
  // file's own: no other file's messages are sent here, and none of these are taken from them.
  app = await startTestServer({ databaseUrl: await databases.create(), delivery: { dispatch: false, dispatcher: FAST } })
})
/** Messages an earlier test of this file left waiting would be sent too: each test starts with nothing pending but its own. */
beforeEach(async () => {
  await app.orm.em
    .fork()
    .execute(`update outbox_message set status = 'failed', last_error = 'left by an earlier test' where status = 'pending'`)
})
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.stop()))
  await Promise.all([postmark.replied(), twilio.replied()])
  postmark.reset()
  twilio.reset()
})
afterAll(async () => {
  await app?.stop()
  await postmark?.close()
  await twilio?.close()
  await databases.dropAll()
})

function transports(channels: ('email' | 'sms')[] = ['email', 'sms']): Transports {
  return {
    ...(channels.includes('email')
      ? {
          email: createPostmarkTransport({
            serverToken: 'token',
            from: 'Photos <photos@example.com>',
            messageStream: 'outbound',
            apiUrl: postmark.url,
            timeoutMs: 5_000,
          }),
        }
      : {}),
    ...(channels.includes('sms')
      ? {
          sms: createTwilioTransport({
            accountSid: SID,
            authToken: 'twilio-token',
            from: '+15005550006',
            apiUrl: twilio.url,
            timeoutMs: 5_000,
          }),
        }
      : {}),
  }
}

function dispatch(settings: Partial<DispatcherSettings>, channels?: ('email' | 'sms')[]): Dispatcher {
  const dispatcher = startDispatcher({
    orm: app.orm,
    transports: transports(channels),
    logger: createLogger({ silent: true }),
    settings: { ...FAST, ...settings },
  })
  dispatchers.push(dispatcher)
  return dispatcher
}

let serial = 0
/** Phones differ from run to run too: a customer is one per phone. */
const PHONE_OFFSET = Math.floor(Math.random() * 8000)
/** Guests with addresses no other test uses: what the fakes delivered is counted per recipient. */
function guests(count: number, contact: { email?: boolean; phone?: boolean }): FixtureGuest[] {
  return Array.from({ length: count }, () => {
    const n = ++serial
    return {
      name: `Guest${n}`,
      ...(contact.email ? { email: `volume-${n}-${Date.now()}@example.org` } : {}),
      ...(contact.phone ? { phone: `+1 415 555 ${1000 + ((PHONE_OFFSET + n) % 9000)}` } : {}),
    }
  })
}

/**
 * Live galleries of up to 12 guests each (a session's most), all guests with the given contacts;
 * answered once their links are due (the photos' copies made, which releases them).
 */
async function galleries(count: number, contact: { email?: boolean; phone?: boolean }): Promise<string[]> {
  const ids: string[] = []
  for (let left = count; left > 0; left -= 12)
    ids.push((await makeLiveGallery(app, { guests: guests(Math.min(12, left), contact) })).sessionId)
  await until(
    () =>
      app.orm.em
        .fork()
        .execute<{ held: number }[]>(
          'select count(*)::int as held from outbox_message where session_id in (?) and next_attempt_at > now()',
          [ids],
        ),
    ([row]) => row!.held === 0,
  )
  return ids
}

type Row = {
  id: string
  channel: string
  recipient: string
  status: string
  attempts: number
  provider_message_id: string | null
  last_error: string | null
}

const rowsOf = (sessionIds: string[]) =>
  app.orm.em
    .fork()
    .execute<Row[]>(
      'select id, channel, recipient, status, attempts, provider_message_id, last_error from outbox_message where session_id in (?) order by channel, recipient',
      [sessionIds],
    )

const settled = (rows: Row[]) => rows.length > 0 && rows.every((row) => row.status !== 'pending')

/** How many times each recipient was taken by the providers. */
function tally(...fakes: FakeProvider[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const to of fakes.flatMap((fake) => fake.delivered)) counts.set(to, (counts.get(to) ?? 0) + 1)
  return counts
}

function expectSentOnce(rows: Row[]) {
  const counts = tally(postmark, twilio)
  expect(rows.filter((row) => row.status !== 'sent')).toEqual([])
  expect(rows.map((row) => [row.recipient, counts.get(row.recipient)]).filter(([, count]) => count !== 1)).toEqual([])
  expect([...counts.keys()].sort()).toEqual(rows.map((row) => row.recipient).sort())
}

describe('delivery at event-end volume', () => {
  it('when more messages are due than the concurrency, then the provider sees at most that many requests at once, and all of them', async () => {
    const sessions = await galleries(12, { phone: true })
    twilio.latencyMs = 150
    dispatch({ concurrency: 3 }, ['sms'])
    const rows = await until(() => rowsOf(sessions), settled)
    expect(twilio.peakInFlight).toBe(3)
    expect(twilio.requests).toHaveLength(12)
    expectSentOnce(rows)
  })

  it('when a channel has a rate, then its messages reach the provider no faster than that, and the other channel is not held back', async () => {
    const sessions = await galleries(6, { email: true, phone: true })
    dispatch({ perSecond: { sms: 10 }, providerBatch: 1 })
    const rows = await until(() => rowsOf(sessions), settled)
    expectSentOnce(rows)
    const arrivals = twilio.requests.map((request) => request.at)
    expect(arrivals).toHaveLength(6)
    // 10 a second: 100 ms apart as they leave, so at most 2 in any 200 ms. At the provider one may
    // arrive late (a busy machine, the SDK's first request) and bunch with the next: at most 3 in any
    // 200 ms, where unpaced all six arrive within a few ms of each other.
    for (const start of arrivals)
      expect(arrivals.filter((at) => at >= start && at < start + 200).length, `from ${start}`).toBeLessThanOrEqual(3)
    // Emails have no rate: all six went while the SMS were still being paced.
    const emails = postmark.requests.map((request) => request.at)
    expect(Math.max(...emails)).toBeLessThan(arrivals.at(-1)!)
  })

  it('when the providers answer 429 (Twilio 20429 with Retry-After, Postmark without), then the messages are retried after the pause and sent once', async () => {
    const sessions = await galleries(1, { email: true, phone: true })
    twilio.queue({ ...TWILIO_TOO_MANY_REQUESTS, headers: { 'retry-after': '1' } })
    postmark.queue(POSTMARK_RATE_LIMITED, POSTMARK_RATE_LIMITED)
    dispatch({})
    const rows = await until(() => rowsOf(sessions), settled)
    expectSentOnce(rows)
    // Not refusals, and not counted against the message: one attempt each, the one that was judged.
    expect(rows.map(({ channel, attempts }) => `${channel}/${attempts}`)).toEqual(['email/1', 'sms/1'])
    expect(rows.map((row) => row.last_error)).toEqual([null, null])
    // Twilio's Retry-After (1 s) was honoured.
    expect(twilio.requests).toHaveLength(2)
    expect(twilio.requests[1]!.at - twilio.requests[0]!.at).toBeGreaterThanOrEqual(995)
    // Postmark's second 429 came after the first pause (100 ms); the next pause doubled (200 ms).
    expect(postmark.requests).toHaveLength(3)
    expect(postmark.requests[1]!.at - postmark.requests[0]!.at).toBeGreaterThanOrEqual(95)
    expect(postmark.requests[2]!.at - postmark.requests[1]!.at).toBeGreaterThanOrEqual(195)
  })

  it('when a provider keeps answering 429, then the message stays pending with the reason, never failed', async () => {
    const sessions = await galleries(1, { phone: true })
    twilio.queue(...Array.from({ length: 8 }, () => TWILIO_TOO_MANY_REQUESTS))
    const dispatcher = dispatch({ throttleMs: 20, retryForMs: 1 }, ['sms'])
    // Four 429s, long past the retry time that would fail a message that failed; then stop, the fourth settled.
    await twilio.received(4)
    await dispatcher.stop()
    const [row] = await rowsOf(sessions)
    expect(row).toMatchObject({ status: 'pending', attempts: 0 })
    expect(row!.last_error).toMatch(/Twilio rate limit/)
  })

  it('when several emails are due together, then they go in one Postmark batch and each result settles its own message', async () => {
    const people = guests(5, { email: true })
    const [ok, inactive, throttled, transient, fine] = people.map((guest) => guest.email!) as [string, string, string, string, string]
    postmark.refuse(inactive, { ErrorCode: 406, Message: 'You tried to send to recipient(s) that have been marked as inactive.' })
    postmark.refuse(throttled, { ErrorCode: 429, Message: 'Rate limit exceeded.' }, 1)
    postmark.refuse(transient, { ErrorCode: 405, Message: 'Not allowed to send: the account ran out of credits.' }, 1)
    const { sessionId } = await makeLiveGallery(app, { guests: people })
    // One request at a time: the five due emails are more than the free slots, so they share a batch.
    dispatch({ concurrency: 1, throttleMs: 50 }, ['email'])
    const rows = await until(() => rowsOf([sessionId]), settled)

    const first = postmark.requests[0]!
    expect(first.path).toBe('/email/batch')
    const batch = JSON.parse(first.body) as { To: string; MessageStream: string; Metadata: { outboxMessageId: string } }[]
    expect(batch.map((email) => email.To).sort()).toEqual([...people.map((guest) => guest.email!)].sort())
    expect(new Set(batch.map((email) => email.Metadata.outboxMessageId))).toEqual(new Set(rows.map((row) => row.id)))

    const byRecipient = new Map(rows.map((row) => [row.recipient, row]))
    expect(byRecipient.get(ok)).toMatchObject({ status: 'sent', attempts: 1 })
    expect(byRecipient.get(fine)).toMatchObject({ status: 'sent', attempts: 1 })
    expect(byRecipient.get(inactive)).toMatchObject({ status: 'failed', attempts: 1 })
    expect(byRecipient.get(inactive)!.last_error).toMatch(/inactive/)
    // The batch's 429 for one message: retried, its attempt given back.
    expect(byRecipient.get(throttled)).toMatchObject({ status: 'sent', attempts: 1 })
    // Another per-message error: transient, retried with backoff.
    expect(byRecipient.get(transient)).toMatchObject({ status: 'sent', attempts: 2 })
    // Each provider id is the batch result's own.
    expect(new Set(rows.filter((row) => row.status === 'sent').map((row) => row.provider_message_id)).size).toBe(4)

    const counts = tally(postmark)
    expect([ok, throttled, transient, fine].map((to) => counts.get(to))).toEqual([1, 1, 1, 1])
    expect(counts.has(inactive)).toBe(false)
  })

  it('when two dispatchers share one database at volume, then each message is sent exactly once', async () => {
    const sessions = await galleries(48, { email: true, phone: true })
    twilio.latencyMs = postmark.latencyMs = 30
    const settings = { concurrency: 4, batchSize: 8, providerBatch: 5 }
    dispatch(settings)
    dispatch(settings)
    const rows = await until(() => rowsOf(sessions), settled, 20_000)
    expect(rows).toHaveLength(96)
    expectSentOnce(rows)
    expect(rows.every((row) => row.attempts === 1)).toBe(true)
    expect(postmark.requests.some((request) => request.path === '/email/batch')).toBe(true)
    // Two dispatchers, four requests each in flight at most per channel.
    expect(twilio.peakInFlight).toBeLessThanOrEqual(8)
  })

  it('when stop() is called with requests in flight, then those finish and are recorded, and the claimed rest is handed back', async () => {
    const sessions = await galleries(10, { phone: true })
    twilio.latencyMs = 400
    const dispatcher = dispatch({ concurrency: 4, intervalMs: 60_000 }, ['sms'])
    await twilio.received(4)
    await dispatcher.stop()
    const rows = await rowsOf(sessions)
    expect(rows.filter((row) => row.status === 'sent')).toHaveLength(4)
    expect(rows.filter((row) => row.status === 'sent').every((row) => row.attempts === 1 && row.provider_message_id)).toBe(true)
    // Claimed ahead but not sent: pending again, due now, their attempt given back.
    expect(rows.filter((row) => row.status === 'pending').map((row) => row.attempts)).toEqual([0, 0, 0, 0, 0, 0])
    expect(twilio.requests).toHaveLength(4)
    const [due] = await app.orm.em
      .fork()
      .execute<{ due: string }[]>(
        `select count(*) as due from outbox_message where session_id in (?) and status = 'pending' and next_attempt_at <= now()`,
        [sessions],
      )
    expect(Number(due!.due)).toBe(6)
  })
})
