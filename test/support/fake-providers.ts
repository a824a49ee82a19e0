import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Recorded = { method: string; path: string; headers: IncomingHttpHeaders; body: string }
export type Reply = { status: number; body: unknown; delayMs?: number }

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
  /** Resolves once `count` requests in all have arrived; fails after `ms`. */
  received(count: number, ms?: number): Promise<void>
  /** Resolves once every request that arrived has had its reply given (or dropped, its client gone). */
  replied(): Promise<void>
  close(): Promise<void>
}

async function startFake(success: (request: Recorded) => Reply): Promise<FakeProvider> {
  const requests: Recorded[] = []
  const accepted: Recorded[] = []
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
      const request = { method: req.method!, path: req.url!, headers: req.headers, body }
      requests.push(request)
      replying++
      const reply = queued.shift() ?? success(request)
      setTimeout(() => {
        replying--
        if (!res.destroyed) {
          if (reply.status < 300) accepted.push(request)
          res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body))
        }
        check()
      }, reply.delayMs ?? 0)
      check()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    accepted,
    queue: (...replies) => void queued.push(...replies),
    received: (count, ms = 20_000) =>
      waitFor(() => requests.length >= count, ms, () => `the fake provider got ${requests.length} requests within ${ms} ms, not ${count}`),
    replied: () => waitFor(() => replying === 0, 10_000, () => `the fake provider still had ${replying} replies to give after 10 s`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function startFakePostmark(): Promise<FakeProvider> {
  return startFake((request) => ({
    status: 200,
    body: { To: JSON.parse(request.body).To, SubmittedAt: new Date().toISOString(), MessageID: randomUUID(), ErrorCode: 0, Message: 'OK' },
  }))
}

export function startFakeTwilio(): Promise<FakeProvider> {
  return startFake((request) => {
    const form = new URLSearchParams(request.body)
    return {
      status: 201,
      body: { sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued', to: form.get('To'), from: form.get('From'), body: form.get('Body') },
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

/** Twilio's answer for a number that is not one. */
export const TWILIO_INVALID_NUMBER: Reply = {
  status: 400,
  body: { code: 21211, message: "The 'To' number is not a valid phone number.", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 },
}

export const SERVER_ERROR: Reply = { status: 500, body: { ErrorCode: 0, Message: 'Internal error', code: 20500, message: 'Internal Server Error', status: 500 } }
