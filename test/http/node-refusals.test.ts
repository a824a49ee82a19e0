import { STATUS_CODES } from 'node:http'
import { connect } from 'node:net'

import { createLogger } from '@photobooth/server/logger'
import { beforeAll, describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'

/**
 * The requests Node refuses itself, before any route sees them. Sent on raw sockets: an HTTP
 * client would not send most of them.
 */
const app = withTestServer({}, { logger: createLogger({ write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) }) })
let port: number
/** The service's log, as a shipper would read it. */
const lines: Record<string, unknown>[] = []
beforeAll(async () => {
  port = app.config.port
})

type RawAnswer = { statusLine: string; status: number; headers: Record<string, string>; body: string; raw: string }

/** Writes `request` as is, reads until the server closes the connection, and parses what came. */
function exchange(request: string | Buffer | ((socket: ReturnType<typeof connect>) => void)): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(parseAnswers(Buffer.concat(chunks).toString('latin1'))))
    socket.on('connect', () => (typeof request === 'function' ? request(socket) : socket.write(request)))
  })
}

/** Every answer on the connection, one after the other (each with a Content-Length). */
function parseAnswers(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = []
  let rest = raw
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0) throw new Error(`an incomplete answer: ${JSON.stringify(rest.slice(0, 200))}`)
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    )
    const length = Number(headers['content-length'] ?? 0)
    answers.push({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length), raw: rest })
    rest = rest.slice(end + 4 + length)
  }
  return answers
}

/** The code of each status Node's parser refuses with. */
const REFUSAL_CODES: Record<number, string> = {
  400: 'malformed_request',
  404: 'not_found',
  408: 'request_timeout',
  413: 'payload_too_large',
  417: 'expectation_failed',
  431: 'headers_too_large',
}

function expectRefusal(answers: RawAnswer[], status: number, text = STATUS_CODES[status]) {
  expect(answers).toHaveLength(1)
  const [answer] = answers as [RawAnswer]
  expect(answer.statusLine).toBe(`HTTP/1.1 ${status} ${STATUS_CODES[status]}`)
  expect(JSON.parse(answer.body)).toEqual({ error: text, code: REFUSAL_CODES[status] })
  expect(answer.headers).toMatchObject({
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-frame-options': 'SAMEORIGIN',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(answer.body)),
    connection: 'close',
  })
  expect(answer.headers['content-security-policy']).toMatch(/^default-src 'self';/)
  // Its own request id, and its request line under it (written before the connection closed).
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  expect(lines.filter((line) => line.requestId === answer.headers['x-request-id'])).toEqual([
    expect.objectContaining({ level: 'info', message: 'request', route: 'unmatched', status, bytes: Buffer.byteLength(answer.body) }),
  ])
}

describe("Node's own refusals", () => {
  it('when the path holds a raw space, then 400 JSON with the security headers', async () => {
    expectRefusal(await exchange('GET /gallery/a b HTTP/1.1\r\nHost: localhost\r\n\r\n'), 400)
  })

  it('when the request line is not HTTP, then 400 JSON with the security headers', async () => {
    expectRefusal(await exchange('HELLO THERE\r\n\r\n'), 400)
    expectRefusal(await exchange('GET / HTTP/1.1 extra\r\nHost: localhost\r\n\r\n'), 400)
  })

  it('when a header is malformed, then 400 JSON with the security headers', async () => {
    expectRefusal(await exchange('GET / HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n'), 400)
  })

  it('when the header block is over 16 KB, then 431 JSON with the security headers', async () => {
    const big = `X-Filler: ${'a'.repeat(20 * 1024)}\r\n`
    expectRefusal(await exchange(`GET /openapi.json HTTP/1.1\r\nHost: localhost\r\n${big}\r\n`), 431)
  })

  it('when chunk extensions are over 16 KB, then 413 JSON with the security headers', async () => {
    const head = 'POST /track HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n'
    expectRefusal(await exchange(`${head}1;${'e'.repeat(20 * 1024)}\r\nx\r\n0\r\n\r\n`), 413)
  })

  it('when a HEAD is refused, then the refusal has the headers and no body, alone or after a good request', async () => {
    const [alone] = await exchange('HEAD /openapi.json HTTP/1.1\r\nHost: localhost\r\nContent-Type: \x00\r\n\r\n')
    expect(alone!.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(alone!.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-type': 'application/json; charset=utf-8',
      connection: 'close',
    })
    expect(alone!.raw.endsWith('\r\n\r\n')).toBe(true)
    // Found once the headers are whole.
    const [atTheirEnd] = await exchange('HEAD / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: \xc2\r\n\r\n')
    expect(atTheirEnd!.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(atTheirEnd!.raw.endsWith('\r\n\r\n')).toBe(true)
    const pipelined = await exchange(
      'GET /no/such/route HTTP/1.1\r\nHost: localhost\r\n\r\nHEAD /openapi.json HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n',
    )
    expect(pipelined.map((answer) => answer.status)).toEqual([404, 400])
    expect(pipelined[1]!.raw.endsWith('\r\n\r\n')).toBe(true)
  })

  it('when Expect is not 100-continue, then 417 JSON with the security headers', async () => {
    expectRefusal(await exchange('GET /openapi.json HTTP/1.1\r\nHost: localhost\r\nExpect: the-unexpected\r\n\r\n'), 417)
  })

  it('when an HTTP/1.1 request has no Host, then 400 JSON with the security headers', async () => {
    expectRefusal(await exchange('GET /openapi.json HTTP/1.1\r\n\r\n'), 400)
  })

  it('when CONNECT is asked, then 404 { error: "Not Found" } like any unknown method, and the connection closes', async () => {
    expectRefusal(await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 404, 'Not Found')
  })

  it('when the headers arrive too slowly, then 408 JSON with the security headers', async () => {
    const { headersTimeout, requestTimeout } = app.server
    // Checked every second (connectionsCheckingInterval): 300 ms is over within about a second.
    app.server.headersTimeout = 300
    app.server.requestTimeout = 300
    try {
      const started = Date.now()
      expectRefusal(await exchange('GET /openapi.json HTTP/1.1\r\nHost: localhost\r\n'), 408)
      expect(Date.now() - started).toBeLessThan(3_000)
    } finally {
      app.server.headersTimeout = headersTimeout
      app.server.requestTimeout = requestTimeout
    }
  })

  it('when a malformed request follows a good one on a keep-alive connection, then the good answer comes whole, then the refusal', async () => {
    const answers = await exchange('GET /no/such/route HTTP/1.1\r\nHost: localhost\r\n\r\nGET /a b HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(answers.map((answer) => answer.status)).toEqual([404, 400])
    expect(JSON.parse(answers[0]!.body)).toEqual({ error: 'Not Found', code: 'not_found' })
    expectRefusal(answers.slice(1), 400)
  })

  it('when the client resets the connection right after a malformed request, then the server goes on answering', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('GET /a b HTTP/1.1\r\nHost: localhost\r\n\r\n')
        socket.resetAndDestroy()
      })
      socket.on('error', () => {})
      socket.on('close', () => resolve())
    })
    const response = await fetch(`${app.url}/no/such/route`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'Not Found', code: 'not_found' })
  })
})
