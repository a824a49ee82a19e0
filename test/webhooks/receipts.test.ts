/**
 * Delivery receipts and the suppression list (issue 21), through HTTP on real PostgreSQL: the real
 * postmark and twilio SDKs send to local fakes, and the providers' callbacks come in as they send
 * them (Postmark's documented payloads with basic credentials, Twilio's forms signed by the twilio
 * package).
 */
import { randomBytes } from 'node:crypto'

import { loadSettings } from '@photobooth/server/config'
import twilioSdk from 'twilio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import {
  POSTMARK_INACTIVE,
  startFakePostmark,
  startFakeTwilio,
  TWILIO_UNSUBSCRIBED,
  type FakePostmark,
  type FakeProvider,
} from '../support/fake-providers.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'
import {
  POSTMARK_WEBHOOK,
  postmarkBounce,
  postmarkDelivery,
  postmarkSpamComplaint,
  postmarkSubscriptionChange,
  postmarkWebhook,
  twilioCallback,
  twilioInbound,
  twilioStatus,
  TWILIO_TOKEN,
  webhookSettings,
} from '../support/webhooks.js'

const databases = scratchDatabases('receipts')
let postmark: FakePostmark
let twilio: FakeProvider
let app: TestServer
let staff: StaffSession

beforeAll(async () => {
  postmark = await startFakePostmark()
  twilio = await startFakeTwilio()
  const defaults = loadSettings({ MODE: 'development' })
  app = await startTestServer({
    databaseUrl: await databases.create(),
    // The links go as soon as the session completes, not after its photos' copies.
    copies: { ...defaults.copies, linkWaitMs: 0 },
    delivery: {
      ...defaults.delivery,
      ...webhookSettings(twilio.url),
      dispatch: true,
      email: {
        kind: 'postmark',
        serverToken: 'postmark-token',
        from: 'photos@example.com',
        messageStream: 'outbound',
        apiUrl: postmark.url,
        timeoutMs: 2_000,
      },
      dispatcher: { ...defaults.delivery.dispatcher, intervalMs: 50, baseDelayMs: 20, maxDelayMs: 100 },
    },
  })
  staff = await signedInStaff(app)
}, 120_000)
afterAll(async () => {
  await app?.stop()
  await postmark?.close()
  await twilio?.close()
  await databases.dropAll()
})

type Message = {
  id: string
  channel: 'email' | 'sms'
  recipient: string
  status: string
  last_error: string | null
  provider_message_id: string | null
  delivered_at: string | null
  attempts: number
}

const messagesOf = (sessionId: string) =>
  app.orm.em
    .fork()
    .execute<Message[]>(
      'select id, channel, recipient, status, last_error, provider_message_id, delivered_at, attempts from outbox_message where session_id = ? order by created_at, id',
      [sessionId],
    )

/** A new guest's address, unique to the test. */
const newEmail = () => `guest.${randomBytes(4).toString('hex')}@example.org`
const newPhone = () => `+1202555${String(1000 + (randomBytes(2).readUInt16BE() % 9000))}`

/** A completed session of one guest, its links sent: its messages once each has left `pending`. */
async function sentGallery(guest: { email?: string; phone?: string }) {
  const gallery = await makeLiveGallery(app, { guests: [{ name: 'Grace Hopper', ...guest }] })
  const messages = await until(
    () => messagesOf(gallery.sessionId),
    (rows) => rows.length > 0 && rows.every((row) => row.status !== 'pending'),
    20_000,
  )
  return { sessionId: gallery.sessionId, messages }
}

const sentBy = (message: Message) => ({
  outboxMessageId: message.id,
  providerMessageId: message.provider_message_id!,
  email: message.recipient,
})

const staffGet = (path: string) => fetch(`${app.url}${path}`, { headers: staff.headers })
const staffPost = (path: string, body?: unknown) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { ...staff.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

const suppressionsOf = async (query: { email: string } | { phone: string }) =>
  (
    (await (await staffGet(`/staff/suppressions?${new URLSearchParams(query).toString()}`)).json()) as {
      suppressions: { reason: string }[]
    }
  ).suppressions

describe('Postmark webhooks', () => {
  it('when Postmark reports a delivery, then the message is delivered at its time; the same webhook again changes nothing', async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    const [message] = messages
    expect(message).toMatchObject({ channel: 'email', status: 'sent' })
    // The send named the message, so that Postmark's webhooks can.
    const request = postmark.requests.find((r) => r.body.includes(email))!
    expect(JSON.parse(request.body).Metadata).toEqual({ outboxMessageId: message!.id })

    const delivery = postmarkDelivery(sentBy(message!))
    const first = await postmarkWebhook(app, delivery)
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ received: true })
    const [delivered] = await messagesOf(sessionId)
    expect(delivered).toMatchObject({ status: 'delivered', last_error: null })
    expect(new Date(delivered!.delivered_at!).toISOString()).toBe('2026-11-26T16:33:54.907Z')

    expect((await postmarkWebhook(app, delivery)).status).toBe(200)
    expect((await messagesOf(sessionId))[0]).toEqual(delivered)
  })

  it("when a hard bounce comes, then the message is bounced with Postmark's reason (not the mail server's words), the address is suppressed, and a later delivery report does not undo it", async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    const sent = sentBy(messages[0]!)
    expect((await postmarkWebhook(app, postmarkBounce(sent))).status).toBe(200)
    // Out of order: the delivery report of the same message arrives after its bounce.
    expect((await postmarkWebhook(app, postmarkDelivery(sent))).status).toBe(200)
    const [bounced] = await messagesOf(sessionId)
    expect(bounced).toMatchObject({
      status: 'bounced',
      last_error: 'Hard bounce: The server was unable to deliver your message (ex: unknown user, mailbox not found).',
      delivered_at: null,
    })
    expect(await suppressionsOf({ email: email.toUpperCase() })).toEqual([
      { channel: 'email', reason: 'hard-bounce', since: expect.any(Number) },
    ])
  })

  it('when a soft bounce comes, then the message is bounced but the address is not suppressed', async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    expect((await postmarkWebhook(app, postmarkBounce(sentBy(messages[0]!), 'SoftBounce'))).status).toBe(200)
    expect((await messagesOf(sessionId))[0]).toMatchObject({
      status: 'bounced',
      last_error: 'Soft bounce: Unable to temporarily deliver this email.',
    })
    expect(await suppressionsOf({ email })).toEqual([])
  })

  it('when the guest marks the email as spam, then it is bounced and suppressed as a complaint; a later gallery of theirs is recorded suppressed and never sent, and resend says so', async () => {
    const email = newEmail()
    const { messages } = await sentGallery({ email })
    expect((await postmarkWebhook(app, postmarkSpamComplaint(sentBy(messages[0]!)))).status).toBe(200)
    expect(await suppressionsOf({ email })).toEqual([{ channel: 'email', reason: 'spam-complaint', since: expect.any(Number) }])

    const sends = postmark.requests.length
    const later = await makeLiveGallery(app, { guests: [{ name: 'Grace Hopper', email }] })
    expect(await messagesOf(later.sessionId)).toEqual([
      expect.objectContaining({ status: 'suppressed', attempts: 0, last_error: 'The address is on the suppression list: spam-complaint' }),
    ])
    const resend = await staffPost(`/staff/sessions/${later.sessionId}/resend`)
    expect(await resend.json()).toEqual({ queued: 0, suppressed: 1 })
    expect(postmark.requests.slice(sends).filter((r) => r.body.includes(email))).toEqual([])
  })

  it('when a message to an address suppressed meanwhile comes due, then the dispatcher records it suppressed instead of sending it', async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    expect((await postmarkWebhook(app, postmarkSubscriptionChange(email, true))).status).toBe(200)
    const sends = postmark.requests.length
    // As a message queued just before the suppression (a retry, a completion racing the webhook): due now.
    await app.orm.em
      .fork()
      .execute(`update outbox_message set status = 'pending', attempts = 0, next_attempt_at = now() where id = ?`, [messages[0]!.id])
    const [claimed] = await until(
      () => messagesOf(sessionId),
      ([row]) => row!.status !== 'pending',
    )
    expect(claimed).toMatchObject({ status: 'suppressed', attempts: 0, last_error: 'The address is on the suppression list: unsubscribed' })
    expect(postmark.requests.slice(sends).filter((r) => r.body.includes(email))).toEqual([])
  })

  it('when Postmark reports a delivery for a message waiting for a retry (its send timed out here), then it is delivered and not sent again', async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    const sends = postmark.requests.length
    await app.orm.em
      .fork()
      .execute(`update outbox_message set status = 'pending', next_attempt_at = now() + interval '1 hour' where id = ?`, [messages[0]!.id])
    expect((await postmarkWebhook(app, postmarkDelivery(sentBy(messages[0]!)))).status).toBe(200)
    expect((await messagesOf(sessionId))[0]).toMatchObject({ status: 'delivered' })
    // No longer waiting: it will not be claimed again when it comes due.
    expect(postmark.requests.slice(sends).filter((r) => r.body.includes(email))).toEqual([])
  })

  it('when a SubscriptionChange reactivates the address, then its suppression is lifted', async () => {
    const email = newEmail()
    await postmarkWebhook(app, postmarkSubscriptionChange(email, true))
    expect(await suppressionsOf({ email })).toHaveLength(1)
    await postmarkWebhook(app, postmarkSubscriptionChange(email, false))
    expect(await suppressionsOf({ email })).toEqual([])
  })

  it('when Postmark refuses a send as an inactive recipient (406), then the message fails and the address is suppressed', async () => {
    const email = newEmail()
    postmark.refuse(email, POSTMARK_INACTIVE.body as { ErrorCode: number; Message: string })
    const { messages } = await sentGallery({ email })
    expect(messages[0]).toMatchObject({ status: 'failed' })
    expect(await suppressionsOf({ email })).toEqual([{ channel: 'email', reason: 'inactive-recipient', since: expect.any(Number) }])
  })

  it('when a webhook names a message that is gone (erased, purged) or an unknown record type, then it is acknowledged and nothing changes', async () => {
    const gone = postmarkDelivery({ outboxMessageId: 'no-such-message', providerMessageId: 'no-such-id', email: newEmail() })
    expect((await postmarkWebhook(app, gone)).status).toBe(200)
    const open = { RecordType: 'Open', MessageID: 'x', Recipient: newEmail(), FirstOpen: true, Metadata: {} }
    expect((await postmarkWebhook(app, open)).status).toBe(200)
  })

  it('when the credentials are missing, wrong or malformed, then 401 with a Basic challenge, and nothing changes', async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    const bounce = postmarkBounce(sentBy(messages[0]!))
    for (const credentials of [
      null,
      { ...POSTMARK_WEBHOOK, password: 'a-wrong-webhook-password' },
      { user: 'someone', password: POSTMARK_WEBHOOK.password },
    ]) {
      const refused = await postmarkWebhook(app, bounce, credentials)
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toMatch(/^Basic /)
      expect(await refused.json()).toEqual({ error: 'Webhook credentials required', code: 'unauthorized' })
    }
    const garbled = await fetch(`${app.url}/webhooks/postmark`, {
      method: 'POST',
      headers: { authorization: 'Basic !!!', 'content-type': 'application/json' },
      body: JSON.stringify(bounce),
    })
    expect(garbled.status).toBe(401)
    expect((await messagesOf(sessionId))[0]).toMatchObject({ status: 'sent' })
    expect(await suppressionsOf({ email })).toEqual([])
  })

  it('when the body is not JSON or not a webhook, then 400 and nothing changes', async () => {
    const auth = `Basic ${Buffer.from(`${POSTMARK_WEBHOOK.user}:${POSTMARK_WEBHOOK.password}`).toString('base64')}`
    const notJson = await fetch(`${app.url}/webhooks/postmark`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: '{"RecordType":',
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({ error: 'bad body', code: 'bad_body' })
    expect((await postmarkWebhook(app, { RecordType: 42 })).status).toBe(400)
  })
})

describe('Twilio callbacks', () => {
  it('when a caller without the credentials sends a body the route would refuse, then it is refused for its credentials (401, 403), before its input is validated', async () => {
    const unauthorized = await postmarkWebhook(app, { RecordType: 42 }, null)
    expect(unauthorized.status).toBe(401)
    expect(await unauthorized.json()).toEqual({ error: 'Webhook credentials required', code: 'unauthorized' })
    for (const path of ['/webhooks/twilio/status', '/webhooks/twilio/inbound']) {
      const forbidden = await twilioCallback(app, path, { MessageStatus: 'delivered' }, { token: 'another-account-token' })
      expect(forbidden.status, path).toBe(403)
      expect(await forbidden.json(), path).toEqual({ error: 'Twilio signature required', code: 'forbidden' })
    }
  })

  it('when an SMS is sent, then it asks for status callbacks at PUBLIC_URL with its message id; delivered marks it delivered, and a late "sent" changes nothing', async () => {
    const phone = newPhone()
    const { sessionId, messages } = await sentGallery({ phone })
    const [message] = messages
    const request = twilio.requests.find((r) => new URLSearchParams(r.body).get('To') === phone)!
    const callback = new URL(new URLSearchParams(request.body).get('StatusCallback')!)
    expect(`${callback.origin}${callback.pathname}`).toBe(`${app.config.publicUrl}/webhooks/twilio/status`)
    expect(callback.searchParams.get('message')).toBe(message!.id)

    const path = `${callback.pathname}${callback.search}`
    expect((await twilioCallback(app, path, twilioStatus(message!.provider_message_id!, phone, 'delivered'))).status).toBe(200)
    expect((await twilioCallback(app, path, twilioStatus(message!.provider_message_id!, phone, 'sent'))).status).toBe(200)
    const [delivered] = await messagesOf(sessionId)
    expect(delivered).toMatchObject({ status: 'delivered' })
    expect(delivered!.delivered_at).not.toBeNull()
  })

  it("when the carrier did not deliver it, then it is undelivered with Twilio's code; 21610 suppresses the number", async () => {
    const phone = newPhone()
    const { sessionId, messages } = await sentGallery({ phone })
    const sid = messages[0]!.provider_message_id!
    // Found by its sid alone, as a callback without our query would be.
    expect((await twilioCallback(app, '/webhooks/twilio/status', twilioStatus(sid, phone, 'undelivered', '21610'))).status).toBe(200)
    expect((await twilioCallback(app, '/webhooks/twilio/status', twilioStatus(sid, phone, 'delivered'))).status).toBe(200)
    expect((await messagesOf(sessionId))[0]).toMatchObject({
      status: 'undelivered',
      last_error: 'The carrier did not deliver it (Twilio error 21610)',
    })
    expect(await suppressionsOf({ phone })).toEqual([{ channel: 'sms', reason: 'unsubscribed', since: expect.any(Number) }])
  })

  it('when a guest texts STOP, then their number gets no more links (recorded suppressed); START lifts it', async () => {
    const phone = newPhone()
    const stop = await twilioCallback(app, '/webhooks/twilio/inbound', twilioInbound(phone, 'Stop '))
    expect(stop.status).toBe(200)
    expect(stop.headers.get('content-type')).toMatch(/^text\/xml/)
    expect(await stop.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>')
    const later = await makeLiveGallery(app, { guests: [{ name: 'Grace Hopper', phone }] })
    expect(await messagesOf(later.sessionId)).toEqual([expect.objectContaining({ channel: 'sms', status: 'suppressed' })])
    expect(twilio.requests.filter((r) => new URLSearchParams(r.body).get('To') === phone)).toEqual([])

    await twilioCallback(app, '/webhooks/twilio/inbound', twilioInbound(phone, 'START'))
    expect(await suppressionsOf({ phone })).toEqual([])
    // Any other text is not kept.
    await twilioCallback(app, '/webhooks/twilio/inbound', twilioInbound(phone, 'thanks for the photos!'))
    expect(await suppressionsOf({ phone })).toEqual([])
  })

  it('when a signed STOP or START is sent again (the same request, or with another idempotency token), then it changes nothing; two instances given one at once apply it once', async () => {
    const phone = newPhone()
    const inbound = '/webhooks/twilio/inbound'
    const send = (fields: Record<string, string>, token: string) =>
      twilioCallback(app, inbound, fields, { headers: { 'I-Twilio-Idempotency-Token': token } })
    const stop = twilioInbound(phone, 'STOP')
    const start = twilioInbound(phone, 'START')
    expect((await send(stop, 'idem-stop-1')).status).toBe(200)
    expect((await send(start, 'idem-start-1')).status).toBe(200)
    expect(await suppressionsOf({ phone })).toEqual([])

    // The guest said START last: the STOP captured earlier, replayed as it was and with a token of the replayer's own, silences nobody.
    const replayed = await send(stop, 'idem-stop-1')
    expect([replayed.status, await replayed.text()]).toEqual([200, '<?xml version="1.0" encoding="UTF-8"?><Response/>'])
    expect((await send(stop, 'idem-forged-2')).status).toBe(200)
    expect(await suppressionsOf({ phone })).toEqual([])

    // The guest says STOP again: a replayed START does not message them anew.
    expect((await send(twilioInbound(phone, 'STOP'), 'idem-stop-3')).status).toBe(200)
    expect((await send(start, 'idem-start-1')).status).toBe(200)
    expect((await send(start, 'idem-forged-4')).status).toBe(200)
    expect(await suppressionsOf({ phone })).toEqual([{ channel: 'sms', reason: 'unsubscribed', since: expect.any(Number) }])

    // Twilio's retry reaching two instances at once (one database): the START is applied once, and only once.
    const second = await startTestServer({ databaseUrl: app.config.databaseUrl, delivery: app.config.delivery })
    try {
      const retried = twilioInbound(phone, 'START')
      const answers = await Promise.all(
        [app, second].map((server) =>
          twilioCallback(server, inbound, retried, { headers: { 'I-Twilio-Idempotency-Token': 'idem-start-5' } }),
        ),
      )
      expect(answers.map((answer) => answer.status)).toEqual([200, 200])
      expect(await suppressionsOf({ phone })).toEqual([])
      expect((await send(twilioInbound(phone, 'STOP'), 'idem-stop-6')).status).toBe(200)
      expect((await twilioCallback(second, inbound, retried, { headers: { 'I-Twilio-Idempotency-Token': 'idem-start-5' } })).status).toBe(
        200,
      )
      expect(await suppressionsOf({ phone })).toHaveLength(1)
    } finally {
      await second.stop()
    }

    // Remembered for a bounded time (30 days), and never as sent: only hashes are kept.
    const kept = await app.orm.em.fork().execute<{ key_hash: string }[]>('select key_hash from webhook_replay')
    expect(kept.map((row) => row.key_hash).join(' ')).not.toMatch(/idem-|SM[0-9a-f]{32}/)
    await app.orm.em.fork().execute(`update webhook_replay set seen_at = now() - interval '31 days'`)
    expect((await send(start, 'idem-start-1')).status).toBe(200)
    expect(await suppressionsOf({ phone })).toEqual([])
  })

  it('when Twilio refuses a send with 21610, then the message fails and the number is suppressed', async () => {
    const phone = newPhone()
    twilio.queue(TWILIO_UNSUBSCRIBED)
    const { messages } = await sentGallery({ phone })
    expect(messages[0]).toMatchObject({ status: 'failed' })
    expect(await suppressionsOf({ phone })).toEqual([{ channel: 'sms', reason: 'unsubscribed', since: expect.any(Number) }])
  })

  it('when a provider’s refusal quotes the number or the address, then the message’s reason, which staff read, does not', async () => {
    const phone = newPhone()
    twilio.queue({
      ...TWILIO_UNSUBSCRIBED,
      body: { ...(TWILIO_UNSUBSCRIBED.body as object), message: `Attempt to send to unsubscribed recipient ${phone}` },
    })
    const sms = await sentGallery({ phone })
    expect(sms.messages[0]).toMatchObject({
      status: 'failed',
      last_error: 'Twilio refused the message: Attempt to send to unsubscribed recipient +…',
    })
    const email = newEmail()
    postmark.queue({
      status: 422,
      body: {
        ErrorCode: 406,
        Message: `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${email}.`,
      },
    })
    const mail = await sentGallery({ email })
    expect(mail.messages[0]!.status).toBe('failed')
    expect(mail.messages[0]!.last_error).not.toContain(email)
  })

  it('when a callback is unsigned, signed with another token, or its fields or URL were changed, then 403 and nothing changes', async () => {
    const phone = newPhone()
    const { sessionId, messages } = await sentGallery({ phone })
    const fields = twilioStatus(messages[0]!.provider_message_id!, phone, 'undelivered', '21610')
    const path = `/webhooks/twilio/status?message=${messages[0]!.id}`
    const signedFor = (url: string, body = fields) =>
      twilioCallback(app, path, body, { signature: twilioSignatureOf(`${app.config.publicUrl}${url}`, fields) })
    const refusals = [
      await twilioCallback(app, path, fields, { signature: null }),
      await twilioCallback(app, path, fields, { token: 'another-account-token' }),
      // Signed for other fields: a delivered report turned into an undelivered one.
      await signedFor(path, { ...fields, MessageStatus: 'delivered' }),
      // Signed for another URL (another message).
      await signedFor('/webhooks/twilio/status?message=another'),
      await twilioCallback(app, '/webhooks/twilio/inbound', twilioInbound(phone, 'STOP'), { token: 'another-account-token' }),
    ]
    for (const refused of refusals) {
      expect(refused.status).toBe(403)
      expect(await refused.json()).toEqual({ error: 'Twilio signature required', code: 'forbidden' })
    }
    expect((await messagesOf(sessionId))[0]).toMatchObject({ status: 'sent' })
    expect(await suppressionsOf({ phone })).toEqual([])
  })
})

describe('the suppression list, for staff', () => {
  it('when staff lift an email, then it is reactivated at Postmark too and a resend queues it again; lifting again is 404', async () => {
    const email = newEmail()
    const { sessionId, messages } = await sentGallery({ email })
    await postmarkWebhook(app, postmarkBounce(sentBy(messages[0]!)))
    const lifted = await staffPost('/staff/suppressions/lift', { email: ` ${email.toUpperCase()} ` })
    expect(lifted.status).toBe(200)
    expect(await lifted.json()).toEqual({ lifted: true, liftedAtPostmark: true })
    const reactivation = postmark.requests.find(
      (r) => r.path === '/message-streams/outbound/suppressions/delete' && r.body.includes(email.toUpperCase()),
    )
    expect(reactivation).toBeDefined()
    expect(await suppressionsOf({ email })).toEqual([])

    const again = await staffPost('/staff/suppressions/lift', { email })
    expect(again.status).toBe(404)
    expect(await again.json()).toEqual({ error: 'the address is not suppressed', code: 'not_suppressed' })
    // The last link went out more than a minute ago as far as resend is concerned only after a minute: moved back.
    await app.orm.em
      .fork()
      .execute(
        `update outbox_message set created_at = created_at - interval '2 minutes', sent_at = sent_at - interval '2 minutes' where session_id = ?`,
        [sessionId],
      )
    expect(await (await staffPost(`/staff/sessions/${sessionId}/resend`)).json()).toEqual({ queued: 1, suppressed: 0 })
  })

  it('when staff look up an address that is not a phone, or neither or both are given, then 400', async () => {
    expect((await staffGet('/staff/suppressions?phone=not-a-phone')).status).toBe(400)
    expect((await staffGet('/staff/suppressions')).status).toBe(400)
    expect((await staffGet(`/staff/suppressions?email=${newEmail()}&phone=%2B12025550100`)).status).toBe(400)
  })

  it('when the guest is erased, then their opt-out stays honoured, and the list holds no address of theirs', async () => {
    const email = newEmail()
    const { messages } = await sentGallery({ email })
    await postmarkWebhook(app, postmarkSpamComplaint(sentBy(messages[0]!)))
    const { people } = (await (await staffGet(`/staff/people?email=${encodeURIComponent(email)}`)).json()) as { people: { id: string }[] }
    expect((await staffPost(`/staff/people/${people[0]!.id}/erase`)).status).toBe(200)
    expect(await suppressionsOf({ email })).toEqual([{ channel: 'email', reason: 'spam-complaint', since: expect.any(Number) }])
    const rows = await app.orm.em.fork().execute<{ address_hash: string }[]>('select address_hash from suppression')
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.address_hash))).toBe(true)
  })
})

const twilioSignatureOf = (url: string, fields: Record<string, string>) => twilioSdk.getExpectedTwilioSignature(TWILIO_TOKEN, url, fields)
