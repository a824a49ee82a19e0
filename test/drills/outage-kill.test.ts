/**
 * Drill: SIGKILL of one of two instances in the middle of sending 120 gallery links. Each instance
 * runs in a process of its own (forkDrillService) on one database, sends through Postmark and
 * Twilio fakes of its own answering in 3 s, with DELIVERY_CONCURRENCY=4 and a 10 s lease (so that
 * the dead instance's claims move on within the test). A is killed while it has provider requests
 * waiting for their answer (and none answered in the last 300 ms, whose record could still be on
 * its way to the database).
 *
 * Asserts: every message reaches a provider at least once; the messages sent twice are only among
 * those the killed instance had in provider requests without an answer at the kill (counted from
 * its own fakes: requests received minus answered), so at most that many; and those requests were
 * at most DELIVERY_CONCURRENCY per channel (a Postmark batch is one request, its messages counted
 * each). Prints the messages, those in flight at the kill, those sent once, twice and not at all,
 * and the time from the kill to the last message recorded sent.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createClient, uploadPhotos } from '@photobooth/sdk'
import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { createBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { forkDrillService, messagesOf, tally, type DrillService } from '../support/drill-processes.js'
import { startFakePostmark, startFakeTwilio, type FakeProvider, type Recorded } from '../support/fake-providers.js'
import { seedEvent } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { until } from '../support/until.js'

const SID = 'AC0123456789abcdef0123456789abcdef'
const IP_HEADER = 'x-drill-client-ip'
/** 24 sessions of 4 guests, each with an email, the first with a phone too: 96 emails and 24 SMS. */
const SESSIONS = 24
const GUESTS = 4
const CONCURRENCY = 4
const LATENCY_MS = 3_000
const LEASE_MS = 10_000
/** No answer given to A this recently: its record of that send could still be on its way. */
const QUIET_MS = 300

const databases = scratchDatabases('outage_kill')
let databaseUrl: string
let orm: Orm
let dataDir: string
let setId: string
let boothKey: string
/** [0] is A's (killed), [1] is B's. */
const postmarks: FakeProvider[] = []
const twilios: FakeProvider[] = []
const services: DrillService[] = []

beforeAll(async () => {
  postmarks.push(await startFakePostmark(), await startFakePostmark())
  twilios.push(await startFakeTwilio(), await startFakeTwilio())
  for (const fake of [...postmarks, ...twilios]) fake.latencyMs = LATENCY_MS
  databaseUrl = await databases.create()
  orm = await openOrm(databaseUrl)
  await migrate(orm)
  setId = (await seedEvent(orm)).sets[0]!.id
  boothKey = (await createBoothKey(orm.em.fork(), 'Drill booth')).key
  dataDir = await mkdtemp(join(tmpdir(), 'photobooth-outage-kill-'))
  const shared = {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DELIVERY: 'on',
    DELIVERY_CONCURRENCY: String(CONCURRENCY),
    COPIES_LINK_WAIT_MS: '0',
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    LOCAL_UPLOAD_SECRET: randomBytes(32).toString('base64url'),
    CLIENT_IP_HEADER: IP_HEADER,
    POSTMARK_SERVER_TOKEN: 'postmark-token',
    POSTMARK_FROM: 'Photos <photos@example.com>',
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: 'twilio-token',
    TWILIO_FROM: '+15005550006',
    TEST_DISPATCHER: JSON.stringify({ leaseMs: LEASE_MS, intervalMs: 200 }),
  }
  services.push(
    ...(await Promise.all(
      [0, 1].map((index) => forkDrillService({ ...shared, POSTMARK_API_URL: postmarks[index]!.url, TWILIO_API_URL: twilios[index]!.url })),
    )),
  )
})

afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
  await orm?.close()
  await databases.dropAll()
  await Promise.all([...postmarks, ...twilios].map((fake) => fake.close()))
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

/** A fake's requests that have had no answer yet. */
const unanswered = (fake: FakeProvider): Recorded[] => fake.requests.filter((request) => !fake.accepted.includes(request))

describe('kill -9 of one of two instances mid-delivery', () => {
  it("when one instance is killed with sends in flight, then every message goes at least once, and twice only if it was in the dead instance's unanswered requests", async () => {
    const [a, b] = services as [DrillService, DrillService]
    const images = [makeJpeg(32, 24, 1)]
    // Completions spread over both instances, 6 at a time.
    let next = 0
    const complete = async () => {
      for (let index = next++; index < SESSIONS; index = next++) {
        const service = index % 2 === 0 ? a : b
        const kiosk = createClient({ baseUrl: service.url, retry: false, headers: { [IP_HEADER]: `10.5.0.${index + 1}` } })
        const guests = Array.from({ length: GUESTS }, (_, n) => ({
          name: `Kill${index} Guest${n}`,
          email: `kill-${index}-${n}@example.org`,
          ...(n === 0 ? { phone: `+1415559${String(index).padStart(4, '0')}` } : {}),
        }))
        const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests } })
        await uploadPhotos(createClient({ baseUrl: service.url, boothKey, retry: false }), session.id, images, { retry: false })
      }
    }
    await Promise.all(Array.from({ length: 6 }, complete))

    // The kill: A has requests unanswered on both channels, and gave no answer in the last QUIET_MS.
    const [postmarkA, twilioA] = [postmarks[0]!, twilios[0]!]
    let answered = postmarkA.accepted.length + twilioA.accepted.length
    let lastAnswerAt = Date.now()
    await until(
      async () => {
        const now = postmarkA.accepted.length + twilioA.accepted.length
        if (now !== answered) [answered, lastAnswerAt] = [now, Date.now()]
        return { email: unanswered(postmarkA).length, sms: unanswered(twilioA).length, quietMs: Date.now() - lastAnswerAt }
      },
      (seen) => seen.email > 0 && seen.sms > 0 && seen.quietMs >= QUIET_MS,
      // Links wait for their photos' copies (up to COPIES_LINK_WAIT_MS, 30 s) before they are due: on a
      // busy CI machine the copies took longer than the 20 s this waited, and A had sent nothing yet.
      60_000,
    )
    a.child.kill('SIGKILL')
    const killedAt = Date.now()
    const inFlight = { email: unanswered(postmarkA), sms: unanswered(twilioA) }
    const inFlightMessages = tally([...messagesOf(postmarkA, 'email', inFlight.email), ...messagesOf(twilioA, 'sms', inFlight.sms)])
    expect(await a.exited).toEqual({ code: null, signal: 'SIGKILL' })

    const outbox = await until(
      () =>
        orm.em
          .fork()
          .execute<{ channel: 'email' | 'sms'; recipient: string; status: string; attempts: number }[]>(
            'select channel, recipient, status, attempts from outbox_message',
          ),
      (rows) => rows.length === SESSIONS * (GUESTS + 1) && rows.every((row) => row.status === 'sent'),
      LEASE_MS + 30_000,
    ).catch((error: Error) => error)
    const drainedMs = Date.now() - killedAt
    await Promise.all([...postmarks, ...twilios].map((fake) => fake.replied()))

    const rows =
      outbox instanceof Error
        ? await orm.em
            .fork()
            .execute<{ channel: string; recipient: string; status: string; attempts: number }[]>(
              'select channel, recipient, status, attempts from outbox_message',
            )
        : outbox
    const sent = tally([0, 1].flatMap((index) => [...messagesOf(postmarks[index]!, 'email'), ...messagesOf(twilios[index]!, 'sms')]))
    const keys = rows.map((row) => `${row.channel} ${row.recipient}`)
    const twice = keys.filter((key) => (sent.get(key) ?? 0) > 1)
    const statuses: Record<string, number> = {}
    for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1
    console.log(
      `kill -9 of one of two: ${rows.length} messages; at the kill A had ${inFlight.email.length} Postmark and ${inFlight.sms.length} Twilio requests unanswered ` +
        `(${inFlightMessages.size} messages); sent once ${keys.filter((key) => sent.get(key) === 1).length}, twice or more ${twice.length}, ` +
        `not at all ${keys.filter((key) => !sent.has(key)).length}; ` +
        `${outbox instanceof Error ? `not all recorded sent within ${LEASE_MS + 30_000} ms (${JSON.stringify(statuses)})` : `all recorded sent ${drainedMs} ms after the kill`}; ` +
        `provider requests A ${postmarkA.requests.length + twilioA.requests.length}, B ${postmarks[1]!.requests.length + twilios[1]!.requests.length}`,
    )

    // The kill came mid-delivery, with requests in flight, within the concurrency per channel.
    expect(inFlight.email.length).toBeLessThanOrEqual(CONCURRENCY)
    expect(inFlight.sms.length).toBeLessThanOrEqual(CONCURRENCY)
    if (outbox instanceof Error) throw outbox
    expect(rows).toHaveLength(SESSIONS * (GUESTS + 1))
    // At least once, each.
    expect(
      keys.filter((key) => !sent.has(key)),
      'never sent',
    ).toEqual([])
    expect(
      [...sent.keys()].filter((key) => !keys.includes(key)),
      'sent, never queued',
    ).toEqual([])
    // Twice only for what the dead instance had in flight, and never three times.
    expect(
      twice.filter((key) => !inFlightMessages.has(key)),
      'sent twice, not in flight at the kill',
    ).toEqual([])
    expect(
      keys.filter((key) => (sent.get(key) ?? 0) > 2),
      'sent three times or more',
    ).toEqual([])
    expect(twice.length).toBeLessThanOrEqual(inFlightMessages.size)
    expect(b.stderr()).toBe('')
  }, 120_000)
})
