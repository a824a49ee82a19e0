/**
 * Drill: two instances of the service, each in a process of its own, on one database under load.
 * Each runs its delivery dispatcher (the defaults: woken by the other's completions through
 * LISTEN/NOTIFY, claims with FOR UPDATE SKIP LOCKED), and each sends through Postmark and Twilio
 * fakes of its own, so that what each instance sent is known and the union can be counted.
 * Rate limits: per instance in memory by default; one count with REDIS_URL.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createClient, uploadPhotos } from '@photobooth/sdk'
import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { createBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { forkDrillService, messagesOf, tally, type DrillService } from '../support/drill-processes.js'
import { startFakePostmark, startFakeTwilio, type FakeProvider } from '../support/fake-providers.js'
import { postJson, seedEvent, startTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { until } from '../support/until.js'

const SID = 'AC0123456789abcdef0123456789abcdef'
const SESSIONS = 60
const CONCURRENCY = 20
const IP_HEADER = 'x-drill-client-ip'

const databases = scratchDatabases('drill_two')
let databaseUrl: string
let orm: Orm
let dataDir: string
let setId: string
let boothKey: string
/** Per instance: [0] is A's, [1] is B's. */
const postmarks: FakeProvider[] = []
const twilios: FakeProvider[] = []
const services: DrillService[] = []

beforeAll(async () => {
  postmarks.push(await startFakePostmark(), await startFakePostmark())
  twilios.push(await startFakeTwilio(), await startFakeTwilio())
  databaseUrl = await databases.create()
  orm = await openOrm(databaseUrl)
  await migrate(orm)
  setId = (await seedEvent(orm)).sets[0]!.id
  boothKey = (await createBoothKey(orm.em.fork(), 'Drill booth')).key
  // One local bucket for both, with one upload secret: a photo uploaded through one instance's URL
  // can be completed on the other, as with one S3 bucket behind two instances.
  dataDir = await mkdtemp(join(tmpdir(), 'photobooth-drill-two-'))
  const shared = {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DELIVERY: 'on',
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    LOCAL_UPLOAD_SECRET: randomBytes(32).toString('base64url'),
    CLIENT_IP_HEADER: IP_HEADER,
    POSTMARK_SERVER_TOKEN: 'postmark-token',
    POSTMARK_FROM: 'Photos <photos@example.com>',
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: 'twilio-token',
    TWILIO_FROM: '+15005550006',
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

let lastIp = 0
const someIp = () => `10.2.${(++lastIp >> 8) & 255}.${lastIp & 255}`
/** A /56 of the IPv6 documentation range with 24 random bits: Redis counts outlive a run by up to a minute. */
const someIpv6 = () => {
  const bits = randomInt(0, 2 ** 24)
  return `2001:db8:${(bits >> 8).toString(16)}:${((bits & 0xff) << 8).toString(16)}::1`
}

const contact = (base: string, ip: string) =>
  postJson(
    `${base}/contact`,
    { fields: { Name: 'Ada Lovelace', Email: 'ada@example.org', Message: 'A booth for our gala?' } },
    { headers: { 'content-type': 'application/json', [IP_HEADER]: ip } },
  )

/** `count` contact submissions, one after the other, and their statuses. */
async function contactStatuses(base: string, ip: string, count: number): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const response = await contact(base, ip)
    await response.arrayBuffer()
    statuses.push(response.status)
  }
  return statuses
}

describe('two instances on one database', () => {
  it('when completions are spread across both, then every guest gets each link once, whichever dispatcher sent it', async () => {
    const [a, b] = services as [DrillService, DrillService]
    const images = [makeJpeg(64, 48, 1), makeJpeg(48, 64, 2)]
    const statuses: string[] = []
    let next = 0
    const one = async (index: number) => {
      // Registered on one instance, uploaded through its URLs, completed on the other.
      const [registrar, completer] = index % 2 === 0 ? [a, b] : [b, a]
      const kiosk = createClient({ baseUrl: registrar.url, retry: false, headers: { [IP_HEADER]: someIp() } })
      const guests = [
        { name: `Guest${index} One`, email: `two-${index}-1@example.org`, phone: `+1415556${String(1000 + index).padStart(4, '0')}` },
        ...(index % 3 === 0 ? [{ name: `Guest${index} Two`, email: `two-${index}-2@example.org` }] : []),
      ]
      const session = await kiosk.kiosk.registerGuests({ params: { setId }, body: { guests } })
      const { uploads } = await createClient({ baseUrl: registrar.url, boothKey, retry: false }).booth.createUploads({
        params: { sessionId: session.id },
        body: { count: images.length },
      })
      for (const [i, upload] of uploads.entries()) {
        const response = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: images[i] })
        statuses.push(`PUT ${response.status}`)
      }
      const booth = createClient({ baseUrl: completer.url, boothKey, retry: false })
      const completed = await booth.booth.complete({
        params: { sessionId: session.id },
        body: { photos: uploads.map((upload) => upload.key) },
      })
      statuses.push(completed.status)
    }
    const worker = async () => {
      for (let index = next++; index < SESSIONS; index = next++) await one(index)
    }
    // And, meanwhile, the SDK's own path on both: one upload helper per instance.
    const both = Promise.all(
      [a, b].map(async (service, index) => {
        const kiosk = createClient({ baseUrl: service.url, retry: false, headers: { [IP_HEADER]: someIp() } })
        const session = await kiosk.kiosk.registerGuests({
          params: { setId },
          body: { guests: [{ name: `Helper${index}`, email: `helper-${index}@example.org` }] },
        })
        const completed = await uploadPhotos(createClient({ baseUrl: service.url, boothKey, retry: false }), session.id, images)
        statuses.push(completed.status)
      }),
    )
    await Promise.all([...Array.from({ length: CONCURRENCY }, worker), both])
    expect(statuses.filter((status) => status !== 'PUT 200' && status !== 'completed')).toEqual([])

    const outbox = await until(
      () =>
        orm.em
          .fork()
          .execute<{ channel: 'email' | 'sms'; recipient: string; link: string; status: string }[]>(
            'select channel, recipient, link, status from outbox_message',
          ),
      (rows) => rows.length > 0 && rows.every((row) => row.status === 'sent'),
      30_000,
    )
    await Promise.all([...postmarks, ...twilios].map((fake) => fake.replied()))
    // One message per guest and channel: 60 phones, 60 + 20 + 2 emails.
    expect(outbox).toHaveLength(SESSIONS * 2 + SESSIONS / 3 + 2)

    const sentBy = [0, 1].map((index) => [...messagesOf(postmarks[index]!, 'email'), ...messagesOf(twilios[index]!, 'sms')])
    const counts = tally(sentBy.flat())
    const expected = new Map(outbox.map((row) => [`${row.channel} ${row.recipient}`, row.link]))
    expect(
      [...counts.entries()].filter(([, count]) => count !== 1),
      'sent more than once',
    ).toEqual([])
    expect([...counts.keys()].sort()).toEqual([...expected.keys()].sort())
    for (const message of sentBy.flat()) expect(message.text).toContain(expected.get(`${message.channel} ${message.recipient}`))
    console.info(`two instances: ${outbox.length} messages, ${sentBy[0]!.length} sent by A and ${sentBy[1]!.length} by B, none twice`)
  })

  it('when one instance has counted 60 contact submissions of a client, then the 61st is 429 there while the other instance still answers', async () => {
    const [a, b] = services as [DrillService, DrillService]
    const ip = someIp()
    expect(await contactStatuses(a.url, ip, 61)).toEqual([...Array<number>(60).fill(200), 429])
    expect(await contactStatuses(b.url, ip, 1)).toEqual([200])
    expect(await contactStatuses(a.url, ip, 1)).toEqual([429])
  })

  it('when both instances count in one Redis, then 60 submissions spread across them make the 61st 429 on either', async () => {
    const settings = { rateLimits: { windowMs: 60_000, clientIpHeader: IP_HEADER }, redisUrl: 'redis://127.0.0.1:6379', databaseUrl }
    const [first, second] = [await startTestServer(settings), await startTestServer(settings)]
    try {
      const ip = someIpv6()
      expect(await contactStatuses(first.url, ip, 30)).toEqual(Array<number>(30).fill(200))
      expect(await contactStatuses(second.url, ip, 30)).toEqual(Array<number>(30).fill(200))
      expect(await contactStatuses(first.url, ip, 1)).toEqual([429])
      expect(await contactStatuses(second.url, ip, 1)).toEqual([429])
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
  })
})
