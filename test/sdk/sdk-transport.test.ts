import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo } from 'node:net'
import { resolve } from 'node:path'

import {
  ApiError,
  createClient,
  isApiError,
  isDefinedError,
  NetworkError,
  safe,
  SDK_VERSION,
  TimeoutError,
  type ClientOptions,
} from '@photobooth/sdk'
import { afterEach, describe, expect, it } from 'vitest'

import { backoffDelay, pauseBeforeRetry, resolveRetry } from '../../sdk/src/retry.js'

/** What the fake server received, one entry per request. */
type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string }
type Answer = (res: ServerResponse, received: Received, index: number) => void

/** A server of the test's own that answers each request with the next scripted answer (the last one repeats). */
async function fakeServer(...answers: Answer[]): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const entry = { method: req.method!, url: req.url!, headers: req.headers, body }
      received.push(entry)
      answers[Math.min(received.length, answers.length) - 1]!(res, entry, received.length - 1)
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  servers.push(server)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server }
}

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((done) => server.close(done))
  }
})

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
  }
const never: Answer = () => {}
const context = { set: { id: 's', slug: 'wall', name: 'Wall' }, event: { id: 'e', slug: 'party', name: 'Party' } }
const guests = { guests: [{ name: 'Ada', email: 'ada@example.org' }] }
/** Retries in milliseconds, not seconds: the tests wait for nothing. */
const fast: ClientOptions['retry'] = { minDelayMs: 1, maxDelayMs: 2 }

describe('the SDK transport', () => {
  it('when it backs off, then the pause doubles from minDelayMs up to maxDelayMs, scaled by the jitter', () => {
    const highest = resolveRetry({ minDelayMs: 100, maxDelayMs: 1000, random: () => 0.999999 })
    expect([0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, highest))).toEqual([99, 199, 399, 799, 999, 999])
    const lowest = resolveRetry({ random: () => 0 })
    expect(backoffDelay(3, lowest)).toBe(0)
    expect([resolveRetry(undefined).retries, resolveRetry(false).retries, resolveRetry({ retries: 1 }, highest).maxDelayMs]).toEqual([
      3, 0, 1000,
    ])
  })

  it('when nothing listens on the port, then a NetworkError, not a raw TypeError', async () => {
    const { url, server } = await fakeServer(never)
    await new Promise((done) => server.close(done))
    const client = createClient({ baseUrl: url, retry: false })
    const [error] = await safe(client.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }))
    expect(error).toBeInstanceOf(NetworkError)
    expect(error).not.toBeInstanceOf(ApiError)
    expect(isDefinedError(error)).toBe(false)
    expect((error as NetworkError).cause).toBeInstanceOf(TypeError)
  })

  it('when a keyed change gets no answer (refused, or timed out), then its NetworkError or TimeoutError names the Idempotency-Key it was sent with, to send again later', async () => {
    const { url: closedUrl, server } = await fakeServer(never)
    await new Promise((done) => server.close(done))
    const offline = createClient({ baseUrl: closedUrl, retry: false })
    const [refused] = await safe(offline.kiosk.registerGuests({ params: { setId: 's' }, body: guests }))
    expect(refused).toBeInstanceOf(NetworkError)
    expect((refused as NetworkError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
    const [given] = await safe(
      offline.kiosk.registerGuests(
        { params: { setId: 's' }, body: guests },
        { context: { idempotencyKey: '6f1c2a9e-queued-from-yesterday' } },
      ),
    )
    expect((given as NetworkError).idempotencyKey).toBe('6f1c2a9e-queued-from-yesterday')

    const { url } = await fakeServer(never)
    // The key as the client sent it: a 20 ms timeout may end the try before the server has read it.
    const sentKeys: (string | null)[] = []
    const slow = createClient({
      baseUrl: url,
      retry: false,
      fetch: (input, init) => {
        sentKeys.push(new Headers(init?.headers).get('idempotency-key'))
        return fetch(input, init)
      },
    })
    const [timedOut] = await safe(slow.kiosk.registerGuests({ params: { setId: 's' }, body: guests }, { context: { timeoutMs: 20 } }))
    expect(timedOut).toBeInstanceOf(TimeoutError)
    expect(sentKeys).toHaveLength(1)
    expect((timedOut as TimeoutError).idempotencyKey).toBe(sentKeys[0])
    // A read has no key to give.
    const [read] = await safe(offline.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }))
    expect((read as NetworkError).idempotencyKey).toBeUndefined()
  })

  it('when a call keeps timing out, then its deadline ends it across retries with a TimeoutError of the deadline, before the retries are spent', async () => {
    const { url, received } = await fakeServer(never)
    const client = createClient({ baseUrl: url, timeoutMs: 100, deadlineMs: 250, retry: { ...fast, retries: 3 } })
    const [error] = await safe(client.kiosk.registerGuests({ params: { setId: 's' }, body: guests }))
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).timeoutMs).toBe(250)
    expect((error as TimeoutError).idempotencyKey).toBe(received[0]!.headers['idempotency-key'])
    // Without the deadline, 4 tries (1 + 3 retries) of 100 ms each; within 250 ms, at most 3.
    expect(received.length).toBeGreaterThanOrEqual(2)
    expect(received.length).toBeLessThan(4)
    expect(new Set(received.map((request) => request.headers['idempotency-key'])).size).toBe(1)
  })

  it('when a shared handler gets an unknown error, then isApiError narrows it to the API’s answer and nothing else', async () => {
    const { url } = await fakeServer(json(404, { error: 'no such set' }))
    const client = createClient({ baseUrl: url, retry: false })
    const [caught] = await safe(client.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }))
    const handle = (error: unknown) => (isApiError(error) ? `${error.status} ${error.message}` : 'not the API')
    expect(handle(caught)).toBe('404 no such set')
    expect(handle(new NetworkError('offline'))).toBe('not the API')
  })

  it('when the server never answers, then a TimeoutError after the call’s timeout, and a GET is tried again', async () => {
    const { url, received } = await fakeServer(never)
    const client = createClient({ baseUrl: url, timeoutMs: 10_000, retry: { ...fast, retries: 2 } })
    const [error] = await safe(client.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }, { context: { timeoutMs: 20 } }))
    expect(error).toBeInstanceOf(TimeoutError)
    expect((error as TimeoutError).timeoutMs).toBe(20)
    expect(received).toHaveLength(3)
  })

  it('when the caller aborts, then the call rejects with the signal’s reason and is not tried again', async () => {
    const { url, received } = await fakeServer(never)
    const client = createClient({ baseUrl: url, retry: fast })
    const controller = new AbortController()
    const call = client.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }, { signal: controller.signal })
    while (received.length === 0) await new Promise((done) => setImmediate(done))
    controller.abort(new Error('left the page'))
    await expect(call).rejects.toThrow('left the page')
    expect(received).toHaveLength(1)
  })

  it('when a GET answers 503 twice, then it is tried again with backoff and answers', async () => {
    const { url, received } = await fakeServer(json(503, { error: 'busy' }), json(503, { error: 'busy' }), json(200, context))
    const client = createClient({ baseUrl: url, retry: fast })
    expect(await client.kiosk.getContext({ eventSlug: 'party', setSlug: 'wall' })).toEqual(context)
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill('GET /events/party/sets/wall'))
    expect(received.every((r) => r.headers['idempotency-key'] === undefined)).toBe(true)
  })

  it('when a 503 says Retry-After (the database away), then the retry waits that long, within maxDelayMs', () => {
    const retry = resolveRetry({ minDelayMs: 100, maxDelayMs: 8_000, random: () => 0 })
    const unavailable = (retryAfter?: string) =>
      new ApiError('SERVICE_UNAVAILABLE', {
        status: 503,
        message: 'The database is unavailable. Try again in a moment.',
        data: undefined,
        defined: true,
        headers: new Headers(retryAfter ? { 'retry-after': retryAfter } : {}),
      })
    expect(pauseBeforeRetry(unavailable('5'), 0, true, retry)).toBe(5_000)
    expect(pauseBeforeRetry(unavailable('30'), 0, true, retry)).toBe(8_000)
    // Without the header, the backoff alone (0 with this jitter).
    expect(pauseBeforeRetry(unavailable(), 0, true, retry)).toBe(0)
    // A change that cannot be repeated is not retried, Retry-After or not.
    expect(pauseBeforeRetry(unavailable('5'), 0, false, retry)).toBeUndefined()
  })

  it('when retries run out, then the last 5xx is given back, typed as its route declares it', async () => {
    const { url, received } = await fakeServer(json(500, { error: 'Internal server error' }))
    const client = createClient({ baseUrl: url, retry: { ...fast, retries: 1 } })
    const [error] = await safe(client.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }))
    expect(isDefinedError(error) && [error.code, error.status, error.message]).toEqual([
      'INTERNAL_SERVER_ERROR',
      500,
      'Internal server error',
    ])
    expect(received).toHaveLength(2)
  })

  it('when a registration without a key fails with 503, then it is retried with one Idempotency-Key the SDK made', async () => {
    const created = { id: 'x', label: 'Ada', status: 'active' }
    const { url, received } = await fakeServer(json(503, { error: 'busy' }), (res) => res.destroy(), json(201, created))
    const client = createClient({ baseUrl: url, retry: fast })
    expect(await client.kiosk.registerGuests({ params: { setId: 's' }, body: guests })).toEqual(created)
    expect(received).toHaveLength(3)
    const keys = received.map((r) => r.headers['idempotency-key'])
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Set(keys)).toEqual(new Set([keys[0]]))
    expect(received.every((r) => r.body === JSON.stringify(guests))).toBe(true)

    // Each call has a key of its own.
    await client.kiosk.registerGuests({ params: { setId: 's' }, body: guests })
    expect(received[3]!.headers['idempotency-key']).not.toBe(keys[0])
  })

  it('when a call carries its own Idempotency-Key, then every try sends that key', async () => {
    const { url, received } = await fakeServer(json(502, { error: 'gateway' }), json(201, { id: 'x', label: 'Ada', status: 'active' }))
    const client = createClient({ baseUrl: url, retry: fast })
    await client.kiosk.registerGuests({ params: { setId: 's' }, body: guests }, { context: { idempotencyKey: 'kiosk-7-attempt-1' } })
    expect(received.map((r) => r.headers['idempotency-key'])).toEqual(['kiosk-7-attempt-1', 'kiosk-7-attempt-1'])
  })

  it('when the same key is still in flight (409), then it waits and tries again; a domain 409 is final', async () => {
    const inFlight = json(409, { error: 'A request with this Idempotency-Key is still in progress' })
    const done = { id: 'x', status: 'cancelled' }
    const { url, received } = await fakeServer(inFlight, json(200, done, { 'idempotent-replayed': 'true' }))
    const client = createClient({ baseUrl: url, boothKey: 'pbk_x', retry: fast })
    const seen: (string | null)[] = []
    const answer = await client.booth.cancel(
      { params: { sessionId: 'x' } },
      { context: { onResponse: (r) => seen.push(r.headers.get('idempotent-replayed')) } },
    )
    expect(answer).toEqual(done)
    expect(seen).toEqual([null, 'true'])
    expect(received).toHaveLength(2)

    const conflict = await fakeServer(json(409, { error: 'The session is no longer active' }))
    const [error] = await safe(
      createClient({ baseUrl: conflict.url, boothKey: 'pbk_x', retry: fast }).booth.cancel({ params: { sessionId: 'x' } }),
    )
    expect(isDefinedError(error) && error.code === 'CONFLICT' && error.message).toBe('The session is no longer active')
    expect(conflict.received).toHaveLength(1)
  })

  it('when a route answers a code it does not declare (a 409 from getContext), then it is a generic HTTP error, not a defined one', async () => {
    const { url } = await fakeServer(json(409, { error: 'surprise' }, { 'x-request-id': 'req-123' }))
    const client = createClient({ baseUrl: url })
    const [error, , isDefined] = await safe(client.kiosk.getContext({ eventSlug: 'a', setSlug: 'b' }))
    expect(isDefined).toBe(false)
    expect(isDefinedError(error)).toBe(false)
    expect(error).toBeInstanceOf(ApiError)
    const http = error as ApiError
    expect([http.status, http.code, http.defined, http.message, http.requestId]).toEqual([409, 'CONFLICT', false, 'surprise', 'req-123'])
  })

  it('when over the rate limit (429), then it is given back at once by default, and waited out when configured', async () => {
    const created = { id: 'x', label: 'Ada', status: 'active' }
    const limited = json(429, { error: 'Too many requests. Try again in a minute.' })
    const first = await fakeServer(limited, json(201, created))
    const [error] = await safe(
      createClient({ baseUrl: first.url, retry: fast }).kiosk.registerGuests({ params: { setId: 's' }, body: guests }),
    )
    expect(isDefinedError(error) && [error.code, error.status]).toEqual(['TOO_MANY_REQUESTS', 429])
    expect(first.received).toHaveLength(1)

    const second = await fakeServer(limited, json(201, created))
    const client = createClient({ baseUrl: second.url, retry: { ...fast, rateLimitWaitMs: 1 } })
    expect(await client.kiosk.registerGuests({ params: { setId: 's' }, body: guests })).toEqual(created)
    expect(second.received).toHaveLength(2)
  })

  it('when a POST the server does not keep by key fails (contact), then it is sent once, without a key', async () => {
    const { url, received } = await fakeServer(json(503, { error: 'Mail or the contact page is not available' }))
    const [error] = await safe(createClient({ baseUrl: url, retry: fast }).contact.submit({ body: { fields: { Name: 'Ada' } } }))
    expect(isDefinedError(error) && error.code).toBe('SERVICE_UNAVAILABLE')
    expect(received).toHaveLength(1)
    expect(received[0]!.headers['idempotency-key']).toBeUndefined()
    // A key the app passes does not make it repeatable: the server would not keep the first answer.
    const [again] = await safe(
      createClient({ baseUrl: url, retry: fast }).contact.submit(
        { body: { fields: { Name: 'Ada' } } },
        { context: { idempotencyKey: 'mine' } },
      ),
    )
    expect(again instanceof ApiError && again.status).toBe(503)
    expect(received).toHaveLength(2)
    expect(received[1]!.headers['idempotency-key']).toBeUndefined()
  })

  it('when any request is sent, then it carries the SDK version, the default headers and the booth key', async () => {
    const { url, received } = await fakeServer(json(200, { events: [] }))
    const seen: string[] = []
    const client = createClient({
      baseUrl: `${url}/`,
      boothKey: 'pbk_key',
      headers: { 'x-kiosk': 'k7' },
      onResponse: (r) => seen.push(r.headers.get('content-type')!),
    })
    await client.booth.listEvents(undefined, { context: { headers: { 'x-trace': 't1' } } })
    expect(received[0]!.headers).toMatchObject({
      'x-photobooth-sdk': SDK_VERSION,
      'x-kiosk': 'k7',
      'x-trace': 't1',
      authorization: 'Bearer pbk_key',
    })
    expect(seen).toEqual(['application/json'])
    const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../sdk/package.json'), 'utf8')) as { version: string }
    expect(SDK_VERSION).toBe(version)
  })

  it('when a custom fetch is given, then every request goes through it', async () => {
    const { url } = await fakeServer(json(200, context))
    const urls: string[] = []
    const client = createClient({
      baseUrl: url,
      fetch: (input, init) => {
        urls.push(input instanceof Request ? input.url : input.toString())
        return fetch(input, init)
      },
    })
    await client.kiosk.getContext({ eventSlug: 'a b', setSlug: 'c' })
    expect(urls).toEqual([`${url}/events/a%20b/sets/c`])
  })
})
