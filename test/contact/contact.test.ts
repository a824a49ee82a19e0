import { createLogger } from '@photobooth/server/logger'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { contactMailVia, POSTMARK_INACTIVE, SERVER_ERROR, startFakePostmark, type FakeProvider } from '../support/fake-providers.js'
import { contactPage, startFakeCms, type FakeCms } from '../support/fake-cms.js'
import { startTestServer, type TestServer } from '../support/harness.js'

const LABELS_PATH = 'data.attributes.form[].label'
/** The production time to live: no test waits for it, they move the service's clock. */
const TTL_MS = 300_000
let now = Date.now()
const clock = () => new Date(now)
let cms: FakeCms
let postmark: FakeProvider
let app: TestServer
const extra: TestServer[] = []

function contactSettings(overrides: { form?: object; mail?: object | null } = {}) {
  return {
    rateLimits: { windowMs: 60_000, clientIpHeader: 'x-test-client-ip' },
    contact: {
      form: overrides.form ?? { kind: 'url' as const, url: cms.url, labelsPath: LABELS_PATH, ttlMs: TTL_MS },
      mail: overrides.mail === null ? undefined : (overrides.mail ?? contactMailVia(postmark.url)),
    },
  } as never
}

beforeAll(async () => {
  cms = await startFakeCms(contactPage(['Name', 'Email', 'Message']))
  postmark = await startFakePostmark()
  app = await startTestServer(contactSettings(), { now: clock })
})
afterEach(async () => {
  cms.mode = 'up'
  cms.page = contactPage(['Name', 'Email', 'Message'])
  // Past the time to live: the next test's first submission reads the page as reset here.
  now += TTL_MS
  postmark.requests.length = postmark.accepted.length = 0
  await Promise.all(extra.splice(0).map((server) => server.stop()))
})
afterAll(async () => {
  await app?.stop()
  await cms?.close()
  await postmark?.close()
})

let clients = 0
const submit = (body: unknown, server = app, init: RequestInit = {}) =>
  fetch(`${server.url}/contact`, {
    method: 'POST',
    body: typeof body === 'string' || body instanceof ReadableStream ? (body as RequestInit['body']) : JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-test-client-ip': `10.2.${(++clients >> 8) & 255}.${clients & 255}` },
    ...init,
  })

async function expectAnswer(response: Response, status: number, body: unknown) {
  expect(response.status).toBe(status)
  expect(await response.json()).toEqual(body)
}

describe('POST /contact', () => {
  it('when the labels are the published ones, then the message is relayed with the sender as Reply-To', async () => {
    const fields = { Name: 'Ada Lovelace', Email: 'ada@example.org', Message: 'A booth for our wedding?\nIn June.' }
    await expectAnswer(await submit({ fields }), 200, { ok: true })
    expect(postmark.requests).toHaveLength(1)
    const email = JSON.parse(postmark.requests[0]!.body)
    expect(email).toMatchObject({
      From: 'Website <web@photobooth.example>',
      To: 'hello@photobooth.example',
      ReplyTo: 'ada@example.org',
      Subject: 'Website contact form',
      MessageStream: 'outbound',
    })
    expect(email.TextBody).toBe('Name:\nAda Lovelace\n\nEmail:\nada@example.org\n\nMessage:\nA booth for our wedding?\nIn June.\n')
    expect(email.HtmlBody).toContain('<strong>Message</strong><br>A booth for our wedding?<br>In June.')
  })

  it('when labels are not on the published page, then 400 "Unknown fields: <labels>" and nothing is sent', async () => {
    await expectAnswer(await submit({ fields: { Name: 'Ada', Company: 'X', Budget: '1' } }), 400, {
      error: 'Unknown fields: Company, Budget',
      code: 'unknown_fields',
    })
    expect(postmark.requests).toHaveLength(0)
  })

  it('when a label is "__proto__", then it is an unknown field like any other, not silently dropped', async () => {
    // Written as text: JSON.parse keeps "__proto__" as an own key, which a plain copy would lose.
    await expectAnswer(await submit('{"fields":{"__proto__":"x","Name":"Ada"}}'), 400, {
      error: 'Unknown fields: __proto__',
      code: 'unknown_fields',
    })
    expect(postmark.requests).toHaveLength(0)
  })

  for (const [label, body] of [
    ['empty fields', { fields: {} }],
    ['25 fields', { fields: Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`F${i}`, 'x'])) }],
    ['a value of 2,001 characters', { fields: { Message: 'x'.repeat(2001) } }],
    ['a value that is not a string', { fields: { Name: 42 } }],
    ['fields that are a list', { fields: ['Name', 'Ada'] }],
    ['no fields', { Name: 'Ada' }],
    ['a field beside fields', { fields: { Name: 'Ada' }, to: 'someone@else.example' }],
    ['a JSON array', []],
    ['a JSON string', '"hello"'],
    ['malformed JSON', '{"fields": {'],
  ] as const) {
    it(`when the body has ${label}, then 400 "Invalid submission"`, async () => {
      await expectAnswer(await submit(body), 400, { error: 'Invalid submission', code: 'invalid_submission' })
      expect(postmark.requests).toHaveLength(0)
    })
  }

  it('when the body is over 16 KB, then 413 "Message too long", decided before anything else', async () => {
    const fields = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`Field ${i}`, 'x'.repeat(2000)]))
    await expectAnswer(await submit({ fields }), 413, { error: 'Message too long', code: 'payload_too_large' })
  })

  it('when the body is over 16 KB without a Content-Length, then 413 "Message too long" all the same', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 17) controller.enqueue(chunk)
        else controller.close()
      },
    })
    await expectAnswer(await submit(stream, app, { duplex: 'half' }), 413, { error: 'Message too long', code: 'payload_too_large' })
  })

  it('when a value tries to inject a header, then it stays in the body and Reply-To is only ever one address', async () => {
    const fields = { Name: 'Eve\r\nBcc: victim@example.org', Email: 'eve@example.org\r\nBcc: victim@example.org', Message: 'hi' }
    await expectAnswer(await submit({ fields }), 200, { ok: true })
    const email = JSON.parse(postmark.requests[0]!.body)
    expect(email.ReplyTo).toBeUndefined()
    expect(Object.keys(email).sort()).toEqual(['From', 'HtmlBody', 'MessageStream', 'Subject', 'Tag', 'TextBody', 'To'])
  })

  it('when another field holds an address, then only the field the form types as an email becomes Reply-To', async () => {
    await expectAnswer(await submit({ fields: { Name: 'ceo@victim.example', Email: 'not an address', Message: 'hi' } }), 200, { ok: true })
    expect(JSON.parse(postmark.requests[0]!.body).ReplyTo).toBeUndefined()
    await expectAnswer(await submit({ fields: { Name: 'ceo@victim.example', Email: 'ada@example.org', Message: 'hi' } }), 200, { ok: true })
    expect(JSON.parse(postmark.requests[1]!.body).ReplyTo).toBe('ada@example.org')
  })

  it('when a label or a value holds a control character other than a line break, then 400 "Invalid submission"', async () => {
    await expectAnswer(await submit({ fields: { 'Na\u0000me': 'Ada' } }), 400, { error: 'Invalid submission', code: 'invalid_submission' })
    await expectAnswer(await submit({ fields: { Message: 'hi\u0000there' } }), 400, {
      error: 'Invalid submission',
      code: 'invalid_submission',
    })
    await expectAnswer(await submit({ fields: { Message: 'lone \ud800' } }), 400, {
      error: 'Invalid submission',
      code: 'invalid_submission',
    })
    expect(postmark.requests).toHaveLength(0)
  })

  it('when the content system goes down, then the last good copy keeps serving', async () => {
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 200, { ok: true })
    cms.mode = 'down'
    now += TTL_MS
    const asked = cms.requests
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 200, { ok: true })
    // The copy was out of date: the content system was asked, and its 503 did not matter.
    expect(cms.requests).toBe(asked + 1)
    await expectAnswer(await submit({ fields: { Unknown: 'x' } }), 400, { error: 'Unknown fields: Unknown', code: 'unknown_fields' })
  })

  it('when the published page changes, then the new labels apply after the time to live, not before', async () => {
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 200, { ok: true })
    cms.page = contactPage(['Full name', 'Email'])
    now += TTL_MS - 1
    await expectAnswer(await submit({ fields: { 'Full name': 'Ada' } }), 400, {
      error: 'Unknown fields: Full name',
      code: 'unknown_fields',
    })
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 200, { ok: true })
    now += 1
    await expectAnswer(await submit({ fields: { 'Full name': 'Ada' } }), 200, { ok: true })
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 400, { error: 'Unknown fields: Name', code: 'unknown_fields' })
  })

  it('when the content system is slow, then the submission waits for it', async () => {
    const server = await startTestServer(contactSettings())
    extra.push(server)
    cms.mode = 'slow'
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }, server), 200, { ok: true })
  })

  it('when there has never been a copy and the content system is down, then 503', async () => {
    cms.mode = 'down'
    const server = await startTestServer(contactSettings())
    extra.push(server)
    const response = await submit({ fields: { Name: 'Ada' } }, server)
    expect(response.status).toBe(503)
    expect(await response.json()).toEqual({ error: 'The contact form is unavailable', code: 'contact_form_unavailable' })
  })

  it('when a client sends 61 submissions in a minute, then the 61st answers 429 in the spec shape and is not relayed', async () => {
    const fromOneClient = () =>
      fetch(`${app.url}/contact`, {
        method: 'POST',
        body: JSON.stringify({ fields: { Name: 'Ada', Message: 'Hello' } }),
        headers: { 'content-type': 'application/json', 'x-test-client-ip': '10.9.0.1' },
      })
    for (let i = 0; i < 60; i++) await expectAnswer(await fromOneClient(), 200, { ok: true })
    const refused = await fromOneClient()
    expect(refused.headers.get('retry-after')).toBeNull()
    expect([...refused.headers.keys()].filter((name) => name.includes('ratelimit'))).toEqual([])
    await expectAnswer(refused, 429, { error: 'Too many requests. Try again in a minute.', code: 'rate_limited' })
    expect(postmark.requests).toHaveLength(60)
    // Another client is not limited by it.
    await expectAnswer(await submit({ fields: { Name: 'Grace' } }), 200, { ok: true })
  })

  it('when the provider refuses, then 502', async () => {
    postmark.queue(POSTMARK_INACTIVE)
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 502, {
      error: 'The mail provider refused the message',
      code: 'mail_refused',
    })
    postmark.queue(SERVER_ERROR)
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }), 502, {
      error: 'The mail provider refused the message',
      code: 'mail_refused',
    })
  })

  it('when mail is not configured, then 503', async () => {
    const server = await startTestServer(contactSettings({ mail: null }))
    extra.push(server)
    await expectAnswer(await submit({ fields: { Name: 'Ada' } }, server), 503, {
      error: 'Mail is not configured',
      code: 'mail_not_configured',
    })
  })

  it('when the development default is used, then the labels come from the local file, the console accepts, and its log holds none of what the sender wrote', async () => {
    const lines: string[] = []
    const server = await startTestServer(
      contactSettings({
        form: { kind: 'file', path: 'server/contact-form.json', labelsPath: 'fields[].label', ttlMs: 1000 },
        mail: { kind: 'console' },
      }),
      { logger: createLogger({ write: (line) => void lines.push(line) }) },
    )
    extra.push(server)
    const fields = { Name: 'Ada Lovelace', Email: 'ada.contact@example.org', Phone: '(415) 555-2671', Message: 'Our wedding in June' }
    await expectAnswer(await submit({ fields }, server), 200, { ok: true })
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((record) => record.message === 'contact form')
    // What a developer needs to see that it was relayed, and to whom in the masked form the gallery links' lines use.
    expect(logged).toMatchObject({ characters: { Name: 12, Email: 23, Phone: 14, Message: 19 }, replyTo: 'a…@example.org' })
    for (const value of ['Ada', 'Lovelace', 'ada.contact', '555', '2671', 'wedding']) expect(lines.join('')).not.toContain(value)
    await expectAnswer(await submit({ fields: { Name: 'Ada', 'Event date': '2027-06-12' } }, server), 200, { ok: true })
    await expectAnswer(await submit({ fields: { Name: 'Ada', Budget: '9' } }, server), 400, {
      error: 'Unknown fields: Budget',
      code: 'unknown_fields',
    })
  })
})
