import { randomBytes } from 'node:crypto'

import type { DispatcherSettings } from '@photobooth/server/modules/messages/dispatcher'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { POSTMARK_INVALID_REQUEST, startFakePostmark, type FakeProvider } from '../support/fake-providers.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { seedEvent, seedSession, startTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'

/** Dispatch is off here: what the staff routes queue stays as they wrote it. */
let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

const email = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.org`
const resend = (sessionId: string, server = app, as = staff) =>
  staffFetch(server, as, `/staff/sessions/${sessionId}/resend`, { method: 'POST' })
const retry = (messageId: string, server = app, as = staff) =>
  staffFetch(server, as, `/staff/messages/${messageId}/retry`, { method: 'POST' })

type Row = {
  id: string
  channel: string
  recipient: string
  status: string
  attempts: number
  last_error: string | null
  provider_message_id: string | null
}

async function messagesOf(sessionId: string, server = app): Promise<Row[]> {
  return server.orm.em
    .fork()
    .execute<Row[]>(
      'select id, channel, recipient, status, attempts, last_error, provider_message_id from outbox_message where session_id = ? order by created_at, id',
      [sessionId],
    )
}

/**
 * The outbox compares on the database's clock (outbox.queries.ts): a session's messages are moved
 * back in time there, as if they had been created and settled that many seconds ago.
 */
async function settle(sessionId: string, status: 'sent' | 'failed', { createdAgo, sentAgo }: { createdAgo: number; sentAgo?: number }) {
  await app.orm.em.fork().execute(
    `update outbox_message set status = ?, created_at = now() - ? * interval '1 second',
            sent_at = case when ?::float8 is null then null else now() - ?::float8 * interval '1 second' end
      where session_id = ?`,
    [status, createdAgo, sentAgo ?? null, sentAgo ?? null, sessionId],
  )
}

/** A live gallery of two guests (three messages: Ada by email and SMS, Grace by email), all sent two minutes ago. */
async function sentGallery() {
  const [ada, grace] = [email('ada'), email('grace')]
  const gallery = await makeLiveGallery(app, {
    guests: [
      { name: 'Ada', email: ada, phone: '+1 415 555 2671' },
      { name: 'Grace', email: grace },
    ],
  })
  await settle(gallery.sessionId, 'sent', { createdAgo: 120, sentAgo: 110 })
  return { sessionId: gallery.sessionId, ada, grace }
}

describe('POST /staff/sessions/:sessionId/resend', () => {
  it('when staff click resend twice, then the first click queues one message per guest and channel and the second none', async () => {
    const { sessionId, ada, grace } = await sentGallery()
    const first = await resend(sessionId)
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ queued: 3, suppressed: 0 })
    const second = await resend(sessionId)
    expect(second.status).toBe(200)
    expect(await second.json()).toEqual({ queued: 0, suppressed: 0 })

    const rows = await messagesOf(sessionId)
    expect(
      rows.filter((row) => row.status === 'pending').map(({ channel, recipient, attempts }) => ({ channel, recipient, attempts })),
    ).toEqual([
      { channel: 'email', recipient: ada, attempts: 0 },
      { channel: 'sms', recipient: '+14155552671', attempts: 0 },
      { channel: 'email', recipient: grace, attempts: 0 },
    ])
    expect(rows).toHaveLength(6)
  })

  it('when several resends of one session arrive at once, then one set of messages is queued', async () => {
    const { sessionId } = await sentGallery()
    const responses = await Promise.all(Array.from({ length: 10 }, () => resend(sessionId)))
    expect(responses.map((response) => response.status)).toEqual(Array<number>(10).fill(200))
    const queued = await Promise.all(responses.map(async (response) => (await response.json()).queued as number))
    expect(queued.reduce((sum, n) => sum + n, 0)).toBe(3)
    expect((await messagesOf(sessionId)).filter((row) => row.status === 'pending')).toHaveLength(3)
  })

  it('when the last links went out within the minute, then nothing is queued; once the minute is over, a resend queues them again', async () => {
    const { sessionId } = await sentGallery()
    // Created long ago, but sent (after retries) 30 seconds ago.
    await settle(sessionId, 'sent', { createdAgo: 600, sentAgo: 30 })
    expect(await (await resend(sessionId)).json()).toEqual({ queued: 0, suppressed: 0 })
    // Created 30 seconds ago, and already refused: still the same click.
    await settle(sessionId, 'failed', { createdAgo: 30 })
    expect(await (await resend(sessionId)).json()).toEqual({ queued: 0, suppressed: 0 })
    expect(await messagesOf(sessionId)).toHaveLength(3)

    await settle(sessionId, 'sent', { createdAgo: 120, sentAgo: 61 })
    expect(await (await resend(sessionId)).json()).toEqual({ queued: 3, suppressed: 0 })
    expect((await messagesOf(sessionId)).map((row) => row.status)).toEqual(['sent', 'sent', 'sent', 'pending', 'pending', 'pending'])
  })

  it('when the session is not a live gallery (active, or completed without photos), then 409 and nothing is queued', async () => {
    const { sets } = await seedEvent(app.orm)
    for (const session of [
      await seedSession(app.orm, sets[0]!.id, { status: 'active' }),
      await seedSession(app.orm, sets[0]!.id, { status: 'completed', photos: 0 }),
    ]) {
      const response = await resend(session.id)
      expect(response.status).toBe(409)
      expect(await response.json()).toEqual({ error: 'The session is not a live gallery', code: 'session_not_live' })
      expect(await messagesOf(session.id)).toEqual([])
    }
  })

  it('when the session is unknown, then 404 "no such session"', async () => {
    const response = await resend('AAAAAAAAAAAAAAAAAAAAAA')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  })
})

describe('POST /staff/messages/:messageId/retry', () => {
  it('when the message has not failed, then 409 and it is left as it is', async () => {
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: email('ada') }] })
    const [message] = await messagesOf(gallery.sessionId)
    const response = await retry(message!.id)
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({
      error: 'Only a failed message can be retried; this one is pending',
      code: 'message_not_failed',
    })
    expect(await messagesOf(gallery.sessionId)).toEqual([message])
  })

  it('when a resend already queued a message to the guest on that channel, then 409 and the failed one stays failed', async () => {
    const gallery = await makeLiveGallery(app, { guests: [{ name: 'Ada', email: email('ada') }] })
    await settle(gallery.sessionId, 'failed', { createdAgo: 120 })
    const [failed] = await messagesOf(gallery.sessionId)
    expect(await (await resend(gallery.sessionId)).json()).toEqual({ queued: 1, suppressed: 0 })

    const response = await retry(failed!.id)
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({
      error: 'A message to this guest on this channel is already waiting to be sent',
      code: 'message_already_queued',
    })
    expect((await messagesOf(gallery.sessionId)).map((row) => row.status)).toEqual(['failed', 'pending'])
  })

  it('when the message is unknown, then 404 "no such message"', async () => {
    const response = await retry('AAAAAAAAAAAAAAAAAAAAAA')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such message', code: 'no_such_message' })
  })
})

describe('POST /staff/sessions/:sessionId/messages/retry and POST /staff/events/:eventId/messages/retry', () => {
  const retrySession = (sessionId: string) => staffFetch(app, staff, `/staff/sessions/${sessionId}/messages/retry`, { method: 'POST' })
  const retryEvent = (eventId: string) => staffFetch(app, staff, `/staff/events/${eventId}/messages/retry`, { method: 'POST' })
  /** When each message of the session began to be tried, in seconds before now. */
  const triedFor = (sessionId: string) =>
    app.orm.em
      .fork()
      .execute<{ seconds: number }[]>(
        `select extract(epoch from now() - retry_since)::float8 as seconds from outbox_message where session_id = ? and status = 'pending'`,
        [sessionId],
      )

  it("when a provider's outage failed a session's messages days ago, then one call makes every one pending, due now, with the whole retry time again; a second call retries none", async () => {
    const { sessionId } = await sentGallery()
    await app.orm.em
      .fork()
      .execute(
        `update outbox_message set status = 'failed', last_error = 'Postmark answered 500', attempts = 9, retry_since = now() - interval '3 days' where session_id = ?`,
        [sessionId],
      )

    const response = await retrySession(sessionId)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ retried: 3 })
    const rows = await messagesOf(sessionId)
    expect(rows.map(({ status, attempts, last_error }) => ({ status, attempts, last_error }))).toEqual(
      Array.from({ length: 3 }, () => ({ status: 'pending', attempts: 0, last_error: 'Postmark answered 500' })),
    )
    expect((await triedFor(sessionId)).every((row) => row.seconds < 60)).toBe(true)
    expect(await (await retrySession(sessionId)).json()).toEqual({ retried: 0 })
  })

  it("when an event's sessions have failed, sent and waiting messages, then only each guest and channel whose newest message failed is retried, and nothing of another event", async () => {
    const { event, sets } = await seedEvent(app.orm)
    const [failing, mixed] = [
      await makeLiveGallery(app, { setId: sets[0]!.id, guests: [{ name: 'Ada', email: email('ada'), phone: '+1 415 555 2671' }] }),
      await makeLiveGallery(app, { setId: sets[0]!.id, guests: [{ name: 'Grace', email: email('grace') }] }),
    ]
    const elsewhere = await makeLiveGallery(app, { guests: [{ name: 'Lin', email: email('lin') }] })
    await settle(failing.sessionId, 'failed', { createdAgo: 300 })
    await settle(elsewhere.sessionId, 'failed', { createdAgo: 300 })
    // Grace's first link failed, and a resend since then went out: her newest message is sent.
    await settle(mixed.sessionId, 'failed', { createdAgo: 300 })
    expect(await (await resend(mixed.sessionId)).json()).toEqual({ queued: 1, suppressed: 0 })
    await app.orm.em
      .fork()
      .execute(`update outbox_message set status = 'sent', sent_at = now() where session_id = ? and status = 'pending'`, [mixed.sessionId])

    const response = await retryEvent(event.id)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ retried: 2 })
    expect((await messagesOf(failing.sessionId)).map((row) => row.status)).toEqual(['pending', 'pending'])
    expect((await messagesOf(mixed.sessionId)).map((row) => row.status)).toEqual(['failed', 'sent'])
    expect((await messagesOf(elsewhere.sessionId)).map((row) => row.status)).toEqual(['failed'])
  })

  it('when the session or the event is unknown, then 404 and nothing changes', async () => {
    const unknownSession = await retrySession('AAAAAAAAAAAAAAAAAAAAAA')
    expect(unknownSession.status).toBe(404)
    expect(await unknownSession.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
    const unknownEvent = await retryEvent('AAAAAAAAAAAAAAAAAAAAAA')
    expect(unknownEvent.status).toBe(404)
    expect(await unknownEvent.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })
})

describe('with the dispatcher running', () => {
  /** A dispatcher that would not look again for a minute on its own: only being woken sends. */
  const SLOW: DispatcherSettings = {
    intervalMs: 60_000,
    batchSize: 10,
    retryForMs: 3_600_000,
    baseDelayMs: 20,
    maxDelayMs: 100,
    leaseMs: 5_000,
  }
  let postmark: FakeProvider
  let sending: TestServer
  let sendingStaff: StaffSession
  beforeAll(async () => {
    // Messages other test files left waiting would be sent first, and meet the refusal queued below.
    await app.orm.em
      .fork()
      .execute(`update outbox_message set status = 'failed', last_error = 'left by another test' where status = 'pending'`)
    postmark = await startFakePostmark()
    sending = await startTestServer({
      delivery: {
        dispatch: true,
        email: {
          kind: 'postmark',
          serverToken: 'postmark-server-token',
          from: 'Photos <photos@example.com>',
          messageStream: 'gallery-links',
          apiUrl: postmark.url,
          timeoutMs: 2_000,
        },
        dispatcher: SLOW,
      },
    })
    sendingStaff = await signedInStaff(sending)
  })
  afterAll(async () => {
    await sending?.stop()
    await postmark?.close()
  })

  it('when a message Postmark refused is retried, then it is pending with a fresh count, and the dispatcher sends it at once', async () => {
    // Refused for good, without deactivating the address (an inactive one is suppressed: test/webhooks).
    postmark.queue(POSTMARK_INVALID_REQUEST)
    const ada = email('ada')
    const gallery = await makeLiveGallery(sending, { guests: [{ name: 'Ada', email: ada }] })
    const [failed] = await until(
      () => messagesOf(gallery.sessionId, sending),
      (rows) => rows[0]?.status === 'failed',
    )
    expect(failed).toMatchObject({ attempts: 1, provider_message_id: null, last_error: expect.stringMatching(/Illegal email address/) })

    const response = await retry(failed!.id, sending, sendingStaff)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      id: failed!.id,
      channel: 'email',
      recipient: ada,
      status: 'pending',
      attempts: 0,
      lastError: failed!.last_error,
      providerMessageId: null,
      createdAt: expect.any(Number),
      sentAt: null,
      deliveredAt: null,
    })
    const [sent] = await until(
      () => messagesOf(gallery.sessionId, sending),
      (rows) => rows[0]?.status === 'sent',
    )
    expect(sent).toMatchObject({ attempts: 1, last_error: null, provider_message_id: expect.any(String) })
    expect(postmark.requests.map((request) => JSON.parse(request.body).To)).toEqual([ada, ada])
  })

  it('when links are resent, then the dispatcher is woken and sends them', async () => {
    const ada = email('ada')
    const gallery = await makeLiveGallery(sending, { guests: [{ name: 'Ada', email: ada }] })
    await until(
      () => messagesOf(gallery.sessionId, sending),
      (rows) => rows[0]?.status === 'sent',
    )
    await settle(gallery.sessionId, 'sent', { createdAgo: 120, sentAgo: 110 })

    const response = await resend(gallery.sessionId, sending, sendingStaff)
    expect(await response.json()).toEqual({ queued: 1, suppressed: 0 })
    const rows = await until(
      () => messagesOf(gallery.sessionId, sending),
      (list) => list.length === 2 && list.every((row) => row.status === 'sent'),
    )
    expect(rows.map(({ recipient, status }) => `${recipient} ${status}`)).toEqual([`${ada} sent`, `${ada} sent`])
  })
})
