import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { openOrm } from '@photobooth/server/db/orm'
import { createLogger } from '@photobooth/server/logger'
import { startDispatcher, type DispatcherSettings } from '@photobooth/server/modules/messages/dispatcher'
import { createPostmarkTransport } from '@photobooth/server/modules/messages/postmark-transport'
import { createTwilioTransport } from '@photobooth/server/modules/messages/twilio-transport'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import {
  POSTMARK_INACTIVE,
  SERVER_ERROR,
  startFakePostmark,
  startFakeTwilio,
  TWILIO_INVALID_NUMBER,
  type FakePostmark,
  type FakeProvider,
} from '../support/fake-providers.js'
import { makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { serviceEnv } from '../support/processes.js'
import { until } from '../support/until.js'
import { testDatabaseUrl } from '../support/database-url.js'

const FAST: DispatcherSettings = { intervalMs: 50, batchSize: 10, retryForMs: 3_600_000, baseDelayMs: 20, maxDelayMs: 100, leaseMs: 5_000 }
const TOKEN = 'postmark-server-token'
const SID = 'AC0123456789abcdef0123456789abcdef'

let postmark: FakePostmark
let twilio: FakeProvider
const servers: TestServer[] = []

beforeAll(async () => {
  postmark = await startFakePostmark()
  twilio = await startFakeTwilio()
})
/**
 * The database is shared with the other test files, whose completions leave pending messages: a
 * dispatcher here would send those too. Each test starts with nothing pending but its own.
 */
beforeEach(async () => {
  const orm = await openOrm(testDatabaseUrl())
  try {
    await orm.em.fork().execute(`update outbox_message set status = 'failed', last_error = 'left by another test' where status = 'pending'`)
  } finally {
    await orm.close()
  }
})
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()))
  postmark.reset()
  twilio.reset()
})
afterAll(async () => {
  await postmark?.close()
  await twilio?.close()
})

function providers(timeoutMs = 2_000) {
  return {
    email: {
      kind: 'postmark' as const,
      serverToken: TOKEN,
      from: 'Photos <photos@example.com>',
      messageStream: 'gallery-links',
      apiUrl: postmark.url,
      timeoutMs,
    },
    sms: { kind: 'twilio' as const, accountSid: SID, authToken: 'twilio-token', from: '+15005550006', apiUrl: twilio.url, timeoutMs },
  }
}

async function server(
  options: { dispatch?: boolean; timeoutMs?: number; settings?: Partial<DispatcherSettings>; noProviders?: boolean } = {},
) {
  const app = await startTestServer({
    delivery: {
      dispatch: options.dispatch ?? true,
      ...(options.noProviders ? {} : providers(options.timeoutMs)),
      dispatcher: { ...FAST, ...options.settings },
    },
  })
  servers.push(app)
  return app
}

type Row = {
  channel: string
  recipient: string
  status: string
  attempts: number
  provider_message_id: string | null
  last_error: string | null
}

async function messagesOf(app: TestServer, sessionId: string): Promise<Row[]> {
  return app.orm.em
    .fork()
    .execute<Row[]>(
      'select channel, recipient, status, attempts, provider_message_id, last_error from outbox_message where session_id = ? order by channel, recipient',
      [sessionId],
    )
}

async function timesOf(app: TestServer, sessionId: string) {
  const [row] = await app.orm.em
    .fork()
    .execute<{ next_attempt_at: string; sent_at: string | null }[]>(
      'select extract(epoch from next_attempt_at) * 1000 as next_attempt_at, extract(epoch from sent_at) * 1000 as sent_at from outbox_message where session_id = ?',
      [sessionId],
    )
  return { nextAttemptAt: Number(row!.next_attempt_at), sentAt: row!.sent_at === null ? undefined : Number(row!.sent_at) }
}

/** The service in a child process of its own (a real process to kill), sending through the fake Postmark. */
async function forkService(script: URL, env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-process-'))
  const child = fork(fileURLToPath(script), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: serviceEnv({
      DATA_DIR: dataDir,
      DATABASE_URL: testDatabaseUrl(),
      DELIVERY: 'on',
      POSTMARK_SERVER_TOKEN: TOKEN,
      POSTMARK_FROM: 'Photos <photos@example.com>',
      POSTMARK_API_URL: postmark.url,
      ...env,
    }),
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    child,
    exited,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** The dispatcher's claim of due messages, sent once per pass. */
const CLAIM = /for update skip locked/

const settled = (rows: Row[]) => rows.length > 0 && rows.every((row) => row.status !== 'pending')

describe('gallery links by Postmark and Twilio', () => {
  it('when a session completes, then each guest gets the link by email and SMS in the providers’ request shapes', async () => {
    const app = await server()
    const gallery = await makeLiveGallery(app, {
      guests: [
        { name: 'Ada Lovelace', email: 'ada@example.org', phone: '+1 415 555 2671' },
        { name: 'Grace', email: 'grace@example.org' },
      ],
    })
    const rows = await until(() => messagesOf(app, gallery.sessionId), settled)
    expect(rows.map(({ channel, recipient, status, attempts }) => ({ channel, recipient, status, attempts }))).toEqual([
      { channel: 'email', recipient: 'ada@example.org', status: 'sent', attempts: 1 },
      { channel: 'email', recipient: 'grace@example.org', status: 'sent', attempts: 1 },
      { channel: 'sms', recipient: '+14155552671', status: 'sent', attempts: 1 },
    ])
    const link = `${app.config.galleryUrl}/${gallery.sessionId}`

    expect(postmark.requests).toHaveLength(2)
    for (const request of postmark.requests) {
      expect(request).toMatchObject({ method: 'POST', path: '/email' })
      expect(request.headers['x-postmark-server-token']).toBe(TOKEN)
      const email = JSON.parse(request.body)
      expect(email).toMatchObject({
        From: 'Photos <photos@example.com>',
        MessageStream: 'gallery-links',
        Subject: 'Your photos from Test Event',
      })
      expect(email.TextBody).toContain(link)
      expect(email.HtmlBody).toContain(`href="${link}"`)
    }
    expect(postmark.requests.map((r) => JSON.parse(r.body).To).sort()).toEqual(['ada@example.org', 'grace@example.org'])
    expect(JSON.parse(postmark.requests.find((r) => r.body.includes('ada@'))!.body).TextBody).toMatch(/^Hi Ada,/)

    expect(twilio.requests).toHaveLength(1)
    const sms = twilio.requests[0]!
    expect(sms).toMatchObject({ method: 'POST', path: `/2010-04-01/Accounts/${SID}/Messages.json` })
    expect(sms.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:twilio-token`).toString('base64')}`)
    const form = new URLSearchParams(sms.body)
    expect(form.get('To')).toBe('+14155552671')
    expect(form.get('From')).toBe('+15005550006')
    // The sender first (an SMS shows only a number), and a way out.
    expect(form.get('Body')).toBe(`Test Event: your photos are ready: ${link}\nReply STOP to opt out`)

    const providerIds = rows.map((row) => row.provider_message_id)
    expect(providerIds.every((id) => typeof id === 'string' && id.length > 8)).toBe(true)
  })

  it('when the providers fail for a while (500s, a timeout), then every message ends sent exactly once', async () => {
    postmark.queue(SERVER_ERROR, SERVER_ERROR, { status: 200, body: {}, delayMs: 1_500 }, SERVER_ERROR)
    twilio.queue(SERVER_ERROR, { status: 201, body: {}, delayMs: 1_500 })
    const app = await server({ timeoutMs: 400 })
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: 'ada@example.org', phone: '+1 415 555 2671' }] })
    const rows = await until(() => messagesOf(app, gallery.sessionId), settled, 20_000)
    expect(rows.map((row) => [row.channel, row.status])).toEqual([
      ['email', 'sent'],
      ['sms', 'sent'],
    ])
    expect(rows.find((row) => row.channel === 'email')!.attempts).toBe(5)
    expect(rows.find((row) => row.channel === 'sms')!.attempts).toBe(3)
    // What the providers accepted: once per message (the timed-out calls were abandoned by the client),
    // counted once the slow replies have been given.
    await Promise.all([postmark.replied(), twilio.replied()])
    expect(postmark.accepted).toHaveLength(1)
    expect(twilio.accepted).toHaveLength(1)
  })

  it('when a provider keeps failing, then the message is retried for its retry time, whatever its attempts, and only then fails', async () => {
    postmark.queue(...Array.from({ length: 200 }, () => SERVER_ERROR))
    // Long enough that a loaded machine (a held link, slow claims) still fits more than 8 tries in it:
    // 3 s fitted 8 once, in a clean-clone pnpm test of 4 workers on 2 cores (about 17 when calm).
    const retryForMs = 6_000
    const app = await server({ settings: { retryForMs } })
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: 'ada@example.org' }] })
    const [row] = await until(
      () => messagesOf(app, gallery.sessionId),
      ([message]) => message?.status !== 'pending',
      20_000,
    )
    expect(row).toMatchObject({ status: 'failed', last_error: 'Internal error' })
    // More attempts than the old budget of 8 could spend, in the retry time and no sooner.
    expect(row!.attempts).toBeGreaterThan(8)
    // The retry time runs from the queueing (the completion): the last try came after it was over.
    const [queued] = await app.orm.em
      .fork()
      .execute<{ at: number }[]>('select (extract(epoch from created_at) * 1000)::float8 as at from outbox_message where session_id = ?', [
        gallery.sessionId,
      ])
    // (Two clocks: the fake's Date.now() and PostgreSQL's created_at, a few ms apart at most.)
    expect(postmark.requests.at(-1)!.at - queued!.at).toBeGreaterThanOrEqual(retryForMs - 25)
  })

  it('when a provider refuses a recipient for good, then the message fails after one attempt', async () => {
    // Refused by address: a refusal queued for the next request could meet another test's message,
    // and an inactive recipient stays suppressed in the database the test files share.
    const gone = `gone.${randomBytes(4).toString('hex')}@example.org`
    postmark.refuse(gone, POSTMARK_INACTIVE.body as { ErrorCode: number; Message: string })
    twilio.queue(TWILIO_INVALID_NUMBER)
    const app = await server()
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Gone', email: gone, phone: '+1 415 555 0000' }] })
    const rows = await until(() => messagesOf(app, gallery.sessionId), settled)
    expect(rows.map(({ channel, status, attempts }) => ({ channel, status, attempts }))).toEqual([
      { channel: 'email', status: 'failed', attempts: 1 },
      { channel: 'sms', status: 'failed', attempts: 1 },
    ])
    expect(rows[0]!.last_error).toMatch(/inactive/)
    expect(rows[1]!.last_error).toMatch(/not a valid phone number/)
    // Two more passes of the dispatcher (the third has begun) send nothing again.
    await app.sent(CLAIM, 3)
    expect(postmark.requests).toHaveLength(1)
    expect(twilio.requests).toHaveLength(1)
  })

  it('when two dispatchers share one database, then each message is sent once', async () => {
    const app = await server({ dispatch: false })
    const galleries: LiveGallery[] = []
    for (let i = 0; i < 6; i++) {
      galleries.push(
        await makeLiveGallery(app, { guests: [{ name: `G${i}`, email: `g${i}@example.org`, phone: `+1 415 555 01${10 + i}` }] }),
      )
    }
    const transports = { email: createPostmarkTransport(providers().email), sms: createTwilioTransport(providers().sms) }
    const settings = { ...FAST, batchSize: 2, intervalMs: 10 }
    const logger = createLogger({ silent: true })
    const [first, second] = [
      startDispatcher({ orm: app.orm, transports, logger, settings }),
      startDispatcher({ orm: app.orm, transports, logger, settings }),
    ]
    try {
      const all = async () => (await Promise.all(galleries.map((g) => messagesOf(app, g.sessionId)))).flat()
      const rows = await until(all, (list) => list.every((row) => row.status === 'sent'))
      expect(rows).toHaveLength(12)
      expect(rows.every((row) => row.status === 'sent' && row.attempts === 1)).toBe(true)
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
    expect(postmark.requests).toHaveLength(6)
    expect(new Set(postmark.requests.map((r) => JSON.parse(r.body).To)).size).toBe(6)
    expect(twilio.requests).toHaveLength(6)
  })

  it('when the process stops after completion but before sending, then the next start sends', async () => {
    const before = await server({ dispatch: false })
    const gallery = await makeLiveGallery(before, { guests: [{ name: 'Ada', email: 'ada@example.org' }] })
    expect((await messagesOf(before, gallery.sessionId))[0]!.status).toBe('pending')
    await before.stop()
    servers.splice(servers.indexOf(before), 1)

    const after = await server()
    const rows = await until(() => messagesOf(after, gallery.sessionId), settled)
    expect(rows.map((row) => row.status)).toEqual(['sent'])
    expect(postmark.requests).toHaveLength(1)
  })

  it('when the process is killed while sending, then another instance sends the message once its lease runs out', async () => {
    const app = await server({ dispatch: false })
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: 'ada@example.org' }] })
    // The first send hangs: the process dies with the message claimed and its request in flight.
    postmark.queue({ status: 200, body: { MessageID: 'never-seen', ErrorCode: 0, Message: 'OK' }, delayMs: 3_000 })
    const service = await forkService(new URL('../support/drill-service.ts', import.meta.url), {
      TEST_DISPATCHER: JSON.stringify({ ...FAST, leaseMs: 1_500 }),
    })
    try {
      await postmark.received(1)
      expect(postmark.requests).toHaveLength(1)
    } finally {
      service.child.kill('SIGKILL')
      await service.exited
      await service.close()
    }
    const [claimed] = await messagesOf(app, gallery.sessionId)
    expect(claimed).toMatchObject({ status: 'pending', attempts: 1, provider_message_id: null })
    const leaseEnds = await timesOf(app, gallery.sessionId)
    expect(leaseEnds.nextAttemptAt).toBeGreaterThan(Date.now())

    await server()
    const rows = await until(() => messagesOf(app, gallery.sessionId), settled)
    expect(rows.map(({ status, attempts }) => `${status}/${attempts}`)).toEqual(['sent/2'])
    // Not before the dead process's lease ran out.
    expect((await timesOf(app, gallery.sessionId)).sentAt).toBeGreaterThanOrEqual(leaseEnds.nextAttemptAt)
    // At least once: the dead process's request may have reached the provider, so a second one goes.
    expect(postmark.requests.map((request) => JSON.parse(request.body).To)).toEqual(['ada@example.org', 'ada@example.org'])
  })

  it('when another instance completes a session, then this one wakes on the notification, not at its interval, and again after losing its connection', async () => {
    // A dispatcher that would not look again for a minute on its own.
    await server({ settings: { intervalMs: 60_000 } })
    const other = await server({ dispatch: false })
    const listeners = () =>
      other.orm.em
        .fork()
        .execute<{ pid: number }[]>(
          `select pid from pg_stat_activity where query like 'listen %outbox_message%' and datname = current_database()`,
        )
    const [first] = await until(listeners, (rows) => rows.length === 1)
    expect(first).toBeDefined()

    const gallery = await makeLiveGallery(other, { guests: [{ name: 'Ada', email: 'ada@example.org' }] })
    const rows = await until(() => messagesOf(other, gallery.sessionId), settled, 20_000)
    expect(rows.map(({ status }) => status)).toEqual(['sent'])

    // The listening connection dies (a database restart, a proxy timeout): it is made again.
    await other.orm.em.fork().execute('select pg_terminate_backend(?)', [first!.pid])
    const [second] = await until(listeners, (list) => list.length === 1 && list[0]!.pid !== first!.pid, 20_000)
    expect(second!.pid).not.toBe(first!.pid)
    const again = await makeLiveGallery(other, { guests: [{ name: 'Grace', email: 'grace@example.org' }] })
    const after = await until(() => messagesOf(other, again.sessionId), settled, 20_000)
    expect(after.map(({ status }) => status)).toEqual(['sent'])
  })

  it('when no provider is configured, then messages stay pending with the reason "not configured"', async () => {
    const app = await server({ noProviders: true })
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: 'ada@example.org', phone: '+1 415 555 2671' }] })
    const rows = await until(
      () => messagesOf(app, gallery.sessionId),
      (list) => list.every((row) => row.last_error === 'not configured'),
    )
    expect(rows.map(({ status, attempts, last_error }) => ({ status, attempts, last_error }))).toEqual([
      { status: 'pending', attempts: 0, last_error: 'not configured' },
      { status: 'pending', attempts: 0, last_error: 'not configured' },
    ])
  })

  it('when the service gets SIGTERM mid-batch, then it finishes the message in hand, hands the rest back and exits 0', async () => {
    const app = await server({ dispatch: false })
    const gallery = await makeLiveGallery(app, {
      guests: [
        { name: 'A', email: 'a@example.org' },
        { name: 'B', email: 'b@example.org' },
        { name: 'C', email: 'c@example.org' },
      ],
    })
    postmark.queue({ status: 200, body: { MessageID: 'in-hand', ErrorCode: 0, Message: 'OK' }, delayMs: 800 })
    // The service as `pnpm start` runs it (server/src/main.ts), with its own signal handling.
    // One request at a time, one email each: "the message in hand" is then one message.
    const service = await forkService(new URL('../../server/src/main.ts', import.meta.url), {
      DELIVERY_CONCURRENCY: '1',
      DELIVERY_EMAIL_BATCH: '1',
    })
    try {
      await postmark.received(1)
      service.child.kill('SIGTERM')
      expect(await service.exited).toBe(0)
    } finally {
      await service.close()
    }
    const rows = await messagesOf(app, gallery.sessionId)
    expect(rows.map(({ status, attempts }) => `${status}/${attempts}`).sort()).toEqual(['pending/0', 'pending/0', 'sent/1'])
    expect(rows.find((row) => row.status === 'sent')!.provider_message_id).toBe('in-hand')
    expect(postmark.requests).toHaveLength(1)
  })

  it('when the dispatcher stops mid-batch, then it finishes the message in hand and hands the rest back', async () => {
    postmark.queue({ status: 200, body: { MessageID: 'slow-one', ErrorCode: 0, Message: 'OK' }, delayMs: 400 })
    const app = await server({ dispatch: false })
    const gallery = await makeLiveGallery(app, {
      guests: [
        { name: 'A', email: 'a@example.org' },
        { name: 'B', email: 'b@example.org' },
        { name: 'C', email: 'c@example.org' },
      ],
    })
    const dispatcher = startDispatcher({
      orm: app.orm,
      transports: { email: createPostmarkTransport(providers().email) },
      logger: createLogger({ silent: true }),
      // One request at a time, one email each: "the message in hand" is then one message.
      settings: { ...FAST, concurrency: 1, providerBatch: 1 },
    })
    await postmark.received(1)
    await dispatcher.stop()
    const rows = await messagesOf(app, gallery.sessionId)
    expect(rows.map(({ status, attempts }) => `${status}/${attempts}`).sort()).toEqual(['pending/0', 'pending/0', 'sent/1'])
    expect(rows.find((row) => row.status === 'sent')!.provider_message_id).toBe('slow-one')
    expect(postmark.requests).toHaveLength(1)
  })
})
