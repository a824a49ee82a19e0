import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request as it arrived, at `at` (ms since the epoch). */
export type Recorded = { method: string; path: string; headers: IncomingHttpHeaders; body: string; at: number }
export type Reply = { status: number; body: unknown; delayMs?: number; headers?: Record<string, string> }

/**
 * A provider API on loopback: records every request, answers with the provider's success shape
 * unless a test queues other replies (failures, slowness) first.
 */
export type FakeProvider = {
  url: string
  requests: Recorded[]
  /** The replies to give before answering with success again. */
  queue(...replies: Reply[]): void
  /** Called for every request that got the success reply. */
  accepted: Recorded[]
  /**
   * The recipient of every message the provider took (a single send's, each accepted message of a
   * Postmark batch), once per message: what "sent exactly once" is counted on.
   */
  delivered: string[]
  /** The success reply comes after this long (the provider's latency); 0 by default. */
  latencyMs: number
  /** The most requests that were waiting for their reply at one time. */
  peakInFlight: number
  /** Resolves once `count` requests in all have arrived; fails after `ms`. */
  received(count: number, ms?: number): Promise<void>
  /** Resolves once every request that arrived has had its reply given (or dropped, its client gone). */
  replied(): Promise<void>
  /** Forgets the requests, the queued replies and refusals, the peak, and the latency. */
  reset(): void
  close(): Promise<void>
}

/** The fake Postmark: also refuses chosen recipients, in a batch's per-message results as in single sends. */
export type FakePostmark = FakeProvider & {
  /** Answers this recipient with Postmark's error (e.g. 406 inactive), `times` times (until reset by default). */
  refuse(to: string, error: { ErrorCode: number; Message: string }, times?: number): void
}

type Success = (request: Recorded) => { reply: Reply; delivered: string[] }

async function startFake(success: Success, onReset: () => void = () => {}): Promise<FakeProvider> {
  const requests: Recorded[] = []
  const accepted: Recorded[] = []
  const delivered: string[] = []
  const queued: Reply[] = []
  // Tests wait on these instead of sleeping: checked after every request and every reply.
  let replying = 0
  const waiters = new Set<() => boolean>()
  const check = () => waiters.forEach((waiter) => waiter() && waiters.delete(waiter))
  const waitFor = (done: () => boolean, ms: number, failure: () => string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter)
        reject(new Error(failure()))
      }, ms)
      const waiter = () => {
        if (!done()) return false
        clearTimeout(timer)
        resolve()
        return true
      }
      if (!waiter()) waiters.add(waiter)
    })
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const request = { method: req.method!, path: req.url!, headers: req.headers, body, at: Date.now() }
      requests.push(request)
      replying++
      fake.peakInFlight = Math.max(fake.peakInFlight, replying)
      const next = queued.shift()
      const { reply, delivered: recipients } = next ? { reply: next, delivered: [] } : success(request)
      setTimeout(
        () => {
          replying--
          if (!res.destroyed) {
            if (reply.status < 300) {
              accepted.push(request)
              delivered.push(...recipients)
            }
            res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body))
          }
          check()
        },
        reply.delayMs ?? (next ? 0 : fake.latencyMs),
      )
      check()
    })
  })
  // Many clients at once (a dispatcher's lanes, a benchmark's instances): no connection waits for another.
  server.maxConnections = 10_000
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, resolve))
  const fake: FakeProvider = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    accepted,
    delivered,
    latencyMs: 0,
    peakInFlight: 0,
    queue: (...replies) => void queued.push(...replies),
    received: (count, ms = 20_000) =>
      waitFor(
        () => requests.length >= count,
        ms,
        () => `the fake provider got ${requests.length} requests within ${ms} ms, not ${count}`,
      ),
    replied: () =>
      waitFor(
        () => replying === 0,
        10_000,
        () => `the fake provider still had ${replying} replies to give after 10 s`,
      ),
    reset: () => {
      requests.length = accepted.length = delivered.length = queued.length = 0
      fake.latencyMs = 0
      fake.peakInFlight = replying
      onReset()
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return fake
}

type PostmarkEmail = { To: string }

export async function startFakePostmark(): Promise<FakePostmark> {
  const refused = new Map<string, { error: { ErrorCode: number; Message: string }; times: number }>()
  const result = (email: PostmarkEmail) => {
    const refusal = refused.get(email.To)
    if (refusal && refusal.times-- > 0) return { To: email.To, ...refusal.error }
    return { To: email.To, SubmittedAt: new Date().toISOString(), MessageID: randomUUID(), ErrorCode: 0, Message: 'OK' }
  }
  const fake = await startFake(
    (request) => {
      // Reactivating addresses on a message stream (the SDK's deleteSuppressions): each one deleted.
      if (/^\/message-streams\/[^/]+\/suppressions\/delete$/.test(request.path)) {
        const { Suppressions } = JSON.parse(request.body) as { Suppressions: { EmailAddress: string }[] }
        const answers = Suppressions.map(({ EmailAddress }) => ({ EmailAddress, Status: 'Deleted', Message: null }))
        return { reply: { status: 200, body: { Suppressions: answers } }, delivered: [] }
      }
      if (request.path === '/email/batch') {
        // HTTP 200 whatever each message's fate: one result per message, in order.
        const results = (JSON.parse(request.body) as PostmarkEmail[]).map(result)
        return { reply: { status: 200, body: results }, delivered: results.filter((r) => r.ErrorCode === 0).map((r) => r.To) }
      }
      const email = JSON.parse(request.body) as PostmarkEmail
      const answer = result(email)
      return answer.ErrorCode === 0
        ? { reply: { status: 200, body: answer }, delivered: [email.To] }
        : { reply: { status: 422, body: answer }, delivered: [] }
    },
    () => refused.clear(),
  )
  return Object.assign(fake, {
    refuse: (to: string, error: { ErrorCode: number; Message: string }, times = Infinity) => void refused.set(to, { error, times }),
  })
}

/** The contact form's mail settings of a test server, sending through a fake Postmark at `apiUrl`. */
export function contactMailVia(apiUrl: string) {
  return {
    kind: 'postmark' as const,
    to: 'hello@photobooth.example',
    serverToken: 'token',
    from: 'Website <web@photobooth.example>',
    messageStream: 'outbound',
    apiUrl,
    timeoutMs: 2_000,
  }
}

export function startFakeTwilio(): Promise<FakeProvider> {
  return startFake((request) => {
    const form = new URLSearchParams(request.body)
    return {
      reply: {
        status: 201,
        body: {
          sid: `SM${randomBytes(16).toString('hex')}`,
          status: 'queued',
          to: form.get('To'),
          from: form.get('From'),
          body: form.get('Body'),
        },
      },
      delivered: [form.get('To') ?? ''],
    }
  })
}

/** Postmark's answer for a recipient that hard-bounced or complained. */
export const POSTMARK_INACTIVE: Reply = {
  status: 422,
  body: {
    ErrorCode: 406,
    Message: 'You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: gone@example.org.',
  },
}

/** Postmark's refusal of a message it cannot send as it is (error 300): refused for good, the address not deactivated. */
export const POSTMARK_INVALID_REQUEST: Reply = {
  status: 422,
  body: { ErrorCode: 300, Message: "Error parsing 'To': Illegal email address 'ada'. It must contain the '@' symbol." },
}

/** Postmark over its rate limit (it documents no Retry-After). */
export const POSTMARK_RATE_LIMITED: Reply = { status: 429, body: { ErrorCode: 429, Message: 'Rate limit exceeded.' } }

/** Twilio's answer for a number that is not one. */
export const TWILIO_INVALID_NUMBER: Reply = {
  status: 400,
  body: {
    code: 21211,
    message: "The 'To' number is not a valid phone number.",
    more_info: 'https://www.twilio.com/docs/errors/21211',
    status: 400,
  },
}

/** Twilio's refusal of a number that replied STOP: error 21610. */
export const TWILIO_UNSUBSCRIBED: Reply = {
  status: 400,
  body: {
    code: 21610,
    message: 'Attempt to send to unsubscribed recipient',
    more_info: 'https://www.twilio.com/docs/errors/21610',
    status: 400,
  },
}

/** Twilio over the account's or the number's rate: error 20429. */
export const TWILIO_TOO_MANY_REQUESTS: Reply = {
  status: 429,
  body: { code: 20429, message: 'Too Many Requests', more_info: 'https://www.twilio.com/docs/errors/20429', status: 429 },
}

export const SERVER_ERROR: Reply = {
  status: 500,
  body: { ErrorCode: 0, Message: 'Internal error', code: 20500, message: 'Internal Server Error', status: 500 },
}
