/**
 * Delivery benchmark: the end of a big event. 10,000 gallery links queued at once (half email,
 * half SMS), the dispatcher sending them through the real `postmark` and `twilio` SDKs to the local
 * fakes of test/support/fake-providers.ts answering every request in 100 ms, rate limits off. One
 * instance drains the outbox, then two instances on one database (each a process of its own, like
 * two replicas). Each message must reach the providers exactly once: counted per recipient in what
 * the fakes accepted (each email of a Postmark batch counts on its own).
 *
 *   pnpm exec tsx bench/delivery.bench.ts            # embedded PostgreSQL in a temp folder
 *   DATABASE_URL=postgres://… pnpm exec tsx bench/delivery.bench.ts
 *   BENCH_MESSAGES=2000 BENCH_LATENCY_MS=250 pnpm exec tsx bench/delivery.bench.ts
 *
 * See bench/README.md for what is measured and the figures.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { createLogger } from '@photobooth/server/logger'
import { DEFAULT_DISPATCHER_SETTINGS } from '@photobooth/server/config'
import { startDispatcher } from '@photobooth/server/modules/messages/dispatcher'
import { createPostmarkTransport } from '@photobooth/server/modules/messages/postmark-transport'
import { createTwilioTransport } from '@photobooth/server/modules/messages/twilio-transport'
import { createEvent } from '@photobooth/server/modules/events/events.service'

import { startFakePostmark, startFakeTwilio, type FakeProvider } from '../test/support/fake-providers.js'
import { reportRows, verdict, type Row } from './rows.js'
import { cleanUpOnSignals, envNumber, obtainDatabase, onCleanup, runBenchmark } from './support.js'

// ---------------------------------------------------------------------------------------------
// Parameters

// Quick mode: 200 messages (100 guests), both rounds.
const MESSAGES = envNumber('BENCH_MESSAGES', 10_000, 2, 200)
const LATENCY_MS = envNumber('BENCH_LATENCY_MS', 100, 0)
const ONE_INSTANCE_TARGET_S = 60
const TWO_INSTANCES_TARGET_S = 35
/** Guests with an email and a phone: one message each way. */
const GUESTS = Math.ceil(MESSAGES / 2)
const GUESTS_PER_SESSION = 12
const DRAIN_TIMEOUT_MS = 180_000
const POLL_MS = 50

/** This run's rows: ids and addresses of their own, deleted at the end (also on a DATABASE_URL given). */
const RUN = `bench${Date.now().toString(36)}`
const TOKEN = 'bench-postmark-token'
const SID = 'AC0123456789abcdef0123456789abcdef'

// ---------------------------------------------------------------------------------------------
// An instance: a process of its own with the dispatcher as `main.ts` would start it (the default
// settings, rate limits off), told by its parent when to start and when to stop.

type Command = { kind: 'go' } | { kind: 'stop' }
type Report = { kind: 'ready' } | { kind: 'stopped' }

async function instance(): Promise<void> {
  const orm = await openOrm(process.env.DATABASE_URL!)
  const transports = {
    email: createPostmarkTransport({
      serverToken: TOKEN,
      from: 'Photos <photos@example.com>',
      messageStream: 'outbound',
      apiUrl: process.env.POSTMARK_API_URL,
      timeoutMs: 15_000,
    }),
    sms: createTwilioTransport({
      accountSid: SID,
      authToken: 'bench-twilio-token',
      from: '+15005550006',
      apiUrl: process.env.TWILIO_API_URL,
      timeoutMs: 15_000,
    }),
  }
  let dispatcher: ReturnType<typeof startDispatcher> | undefined
  process.on('message', (command: Command) => {
    if (command.kind === 'go')
      dispatcher = startDispatcher({ orm, transports, logger: createLogger({ level: 'warn' }), settings: DEFAULT_DISPATCHER_SETTINGS })
    else
      void (async () => {
        await dispatcher?.stop()
        await orm.close()
        process.send!({ kind: 'stopped' } satisfies Report, () => process.exit(0))
      })()
  })
  process.send!({ kind: 'ready' } satisfies Report)
}

type Instance = { child: ChildProcess; next(kind: Report['kind']): Promise<void> }

function startInstance(env: Record<string, string>): Instance {
  const child = fork(fileURLToPath(import.meta.url), ['instance'], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  onCleanup('instance process', async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  const reports: Report[] = []
  const waiting = new Map<string, () => void>()
  child.on('message', (report: Report) => {
    const resolve = waiting.get(report.kind)
    if (resolve) {
      waiting.delete(report.kind)
      resolve()
    } else reports.push(report)
  })
  return {
    child,
    next: (kind) =>
      new Promise<void>((resolve, reject) => {
        const index = reports.findIndex((report) => report.kind === kind)
        if (index >= 0) return void (reports.splice(index, 1), resolve())
        waiting.set(kind, resolve)
        void exited.then((code) => reject(new Error(`an instance exited (${code}) before it was ${kind}`)))
      }),
  }
}

// ---------------------------------------------------------------------------------------------
// Seeding: one event, guests with an email and a phone, and the outbox rows of a round

async function seedGuests(orm: Orm): Promise<void> {
  const { event, sets } = await createEvent(orm.em.fork(), {
    slug: `delivery-${RUN}`,
    name: 'Benchmark Gala',
    startAt: new Date('2026-06-01T18:00:00Z'),
    isPrivate: false,
    sets: [{ slug: 'stage', name: 'Stage' }],
  })
  onCleanup('seeded rows', async () => {
    const em = orm.em.fork()
    await em.execute(`delete from outbox_message where id like ?`, [`${RUN}-%`])
    // The sessions, their guests and the set go with the event.
    await em.execute(`delete from event where id = ?`, [event.id])
    await em.execute(`delete from customer where id like ?`, [`${RUN}-c%`])
  })
  const em = orm.em.fork()
  const sessions = Math.ceil(GUESTS / GUESTS_PER_SESSION)
  await em.execute(
    `insert into session (id, set_id, label, status, photo_count, completed_at)
     select ? || '-s' || s, ?, 'Guest ' || s, 'completed', 1, now() from generate_series(1, ?) as s`,
    [RUN, sets[0]!.id, sessions],
  )
  await em.execute(
    `insert into customer (id, email, phone, first_name, last_name)
     select ? || '-c' || i, 'guest-' || i || '@' || ? || '.example', '+1555' || lpad(i::text, 7, '0'), 'Guest', i::text from generate_series(1, ?) as i`,
    [RUN, RUN, GUESTS],
  )
  await em.execute(
    `insert into session_guest (id, session_id, position, first_name, last_name, email, phone, customer_id)
     select ? || '-g' || i, ? || '-s' || ((i - 1) / ?::int + 1), (i - 1) % ?::int + 1, 'Guest', i::text,
            'guest-' || i || '@' || ? || '.example', '+1555' || lpad(i::text, 7, '0'), ? || '-c' || i
       from generate_series(1, ?) as i`,
    [RUN, RUN, GUESTS_PER_SESSION, GUESTS_PER_SESSION, RUN, RUN, GUESTS],
  )
}

/** The round's messages, all due now: what hundreds of completions within minutes leave. */
async function queueMessages(orm: Orm, round: string): Promise<number> {
  const em = orm.em.fork()
  await em.execute(`delete from outbox_message where id like ?`, [`${RUN}-%`])
  const rows = await em.execute<{ id: string }[]>(
    `insert into outbox_message (id, session_id, session_guest_id, channel, recipient, link)
     select g.id || '-' || ? || '-' || c.channel, g.session_id, g.id, c.channel,
            case c.channel when 'email' then g.email else g.phone end, 'https://photos.bench.example/g/' || g.session_id
       from session_guest g cross join (values ('email'), ('sms')) as c (channel)
      where g.id like ? || '-g%'
      order by g.id, c.channel
      limit ?
     returning id`,
    [round, RUN, MESSAGES],
  )
  await em.execute('analyze outbox_message')
  return rows.length
}

// ---------------------------------------------------------------------------------------------
// A round: n instances drain the outbox

type Drained = {
  seconds: number
  sent: number
  unexpected: number
  emailRequests: number
  batches: number
  smsRequests: number
  peak: [number, number]
  duplicates: number
  missing: number
}

async function drain(
  orm: Orm,
  databaseUrl: string,
  postmark: FakeProvider,
  twilio: FakeProvider,
  count: number,
  round: string,
): Promise<Drained> {
  const queued = await queueMessages(orm, round)
  postmark.reset()
  twilio.reset()
  postmark.latencyMs = twilio.latencyMs = LATENCY_MS
  const env = { DATABASE_URL: databaseUrl, POSTMARK_API_URL: postmark.url, TWILIO_API_URL: twilio.url, LOG_LEVEL: 'warn' }
  const instances = Array.from({ length: count }, () => startInstance(env))
  await Promise.all(instances.map((one) => one.next('ready')))

  const started = performance.now()
  for (const one of instances) one.child.send({ kind: 'go' } satisfies Command)
  const em = orm.em.fork()
  let sent = 0
  for (;;) {
    const [row] = await em.execute<{ sent: string; open: string }[]>(
      `select count(*) filter (where status = 'sent') as sent, count(*) filter (where status <> 'sent') as open from outbox_message where id like ?`,
      [`${RUN}-%`],
    )
    sent = Number(row!.sent)
    if (sent === queued) break
    if (performance.now() - started > DRAIN_TIMEOUT_MS)
      throw new Error(`${sent} of ${queued} messages sent after ${DRAIN_TIMEOUT_MS / 1000} s (${row!.open} not sent)`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  const seconds = (performance.now() - started) / 1000

  for (const one of instances) one.child.send({ kind: 'stop' } satisfies Command)
  await Promise.all(instances.map((one) => one.next('stopped')))
  await Promise.all([postmark.replied(), twilio.replied()])

  // Exactly once: every queued recipient once in what the providers accepted, nothing else.
  const expected = await em.execute<{ recipient: string }[]>(`select recipient from outbox_message where id like ?`, [`${RUN}-%`])
  const counts = new Map<string, number>()
  for (const to of [...postmark.delivered, ...twilio.delivered]) counts.set(to, (counts.get(to) ?? 0) + 1)
  const wanted = new Set(expected.map((row) => row.recipient))
  const duplicates = [...counts.values()].filter((n) => n > 1).length
  const missing = [...wanted].filter((to) => !counts.has(to)).length
  const unexpected = [...counts.keys()].filter((to) => !wanted.has(to)).length
  return {
    seconds,
    sent,
    unexpected,
    emailRequests: postmark.requests.length,
    batches: postmark.requests.filter((request) => request.path === '/email/batch').length,
    smsRequests: twilio.requests.length,
    peak: [postmark.peakInFlight, twilio.peakInFlight],
    duplicates,
    missing,
  }
}

const s = (seconds: number) => `${seconds.toFixed(1)} s`

function rowsOf(label: string, drained: Drained, targetS: number): Row[] {
  return [
    {
      row: `${label}: drain ${MESSAGES.toLocaleString('en')} messages (fakes answer in ${LATENCY_MS} ms, no rate limit)`,
      value: s(drained.seconds),
      figures:
        `${Math.round(drained.sent / drained.seconds)} messages/s; Postmark ${drained.emailRequests} requests (${drained.batches} batches), ` +
        `Twilio ${drained.smsRequests} requests; peak in flight ${drained.peak[0]} Postmark, ${drained.peak[1]} Twilio`,
      target: `≤ ${targetS} s`,
      result: verdict(drained.seconds <= targetS),
    },
    {
      row: `${label}: each message sent exactly once`,
      value: `${drained.sent - drained.duplicates - drained.missing} / ${MESSAGES}`,
      figures: `${drained.duplicates} recipients sent twice or more, ${drained.missing} not sent, ${drained.unexpected} not queued (counted in what the fakes accepted)`,
      target: 'all, once',
      result: verdict(drained.duplicates === 0 && drained.missing === 0 && drained.unexpected === 0),
    },
  ]
}

async function main(): Promise<void> {
  const settings = DEFAULT_DISPATCHER_SETTINGS
  console.log(
    `delivery benchmark: node ${process.version}; ${MESSAGES} messages (${GUESTS} guests by email and SMS), fakes answering in ${LATENCY_MS} ms; ` +
      `dispatcher defaults: ${settings.concurrency} requests in flight per channel, Postmark batches up to ${settings.providerBatch}, claims up to ${settings.batchSize}`,
  )
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-delivery-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const databaseUrl = await obtainDatabase(dataDir)
  const orm = await openOrm(databaseUrl)
  onCleanup('ORM', () => orm.close())
  await migrate(orm)
  const [postmark, twilio] = await Promise.all([startFakePostmark(), startFakeTwilio()])
  onCleanup('fake providers', async () => void (await Promise.all([postmark.close(), twilio.close()])))
  await seedGuests(orm)

  const one = await drain(orm, databaseUrl, postmark, twilio, 1, 'one')
  console.log(`one instance: ${s(one.seconds)}`)
  const two = await drain(orm, databaseUrl, postmark, twilio, 2, 'two')
  console.log(`two instances: ${s(two.seconds)}`)
  const rows = [
    ...rowsOf('One instance', one, ONE_INSTANCE_TARGET_S),
    ...rowsOf('Two instances, one database', two, TWO_INSTANCES_TARGET_S),
  ]
  reportRows(rows)
  // A missed time is a finding (exit 0); a message sent twice or not at all is a broken guarantee.
  if ([one, two].some((drained) => drained.duplicates + drained.missing + drained.unexpected > 0)) process.exitCode = 1
}

if (process.argv[2] === 'instance') {
  await instance()
} else {
  cleanUpOnSignals()
  await runBenchmark(main)
}
