import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'

import { genericErrorCode } from '@photobooth/sdk/contract'

import { requestContext } from '../logger.js'
import { errorBody } from './answers.js'
import type { RequestLine } from './request-log.js'
import { SECURITY_HEADERS } from './security-headers.js'

/**
 * Node answers some requests itself, before any listener sees them: a request line or header it
 * cannot parse (400), a header block over its 16 KB limit (431), chunk extensions over theirs
 * (413), a request that took too long to arrive (408), an `Expect` other than `100-continue`
 * (417), HTTP/1.1 without `Host` (400), and it drops a `CONNECT` without a word. Its answers
 * have an empty body and none of the security headers every other answer carries. Here they get
 * the service's error shape: `{ "error": "<text>" }` with the security headers and a new
 * `X-Request-Id`, the connection is closed, and each gets its request line in the log (`log`).
 * Its route is `unmatched`: no route saw it.
 *
 * The server must be created with `requireHostHeader: false` (the check is made in `handle`).
 */
export function answerNodeRefusals(
  server: Server,
  log: (line: RequestLine) => void,
): { handle: (listener: RequestListener) => RequestListener } {
  /** The refusal's line, under its own request id as the app's lines are. */
  const logRefusal = (requestId: string, method: string, status: number, bytes: number) =>
    requestContext.run({ requestId }, () => log({ method, route: 'unmatched', status, durationMs: 0, bytes }))
  /** Answers a request Node handed over, and logs it. */
  const answer = (req: IncomingMessage, res: ServerResponse, status: number) => {
    const requestId = randomUUID()
    const body = bodyOf(status)
    res.setHeaders(SECURITY_HEADERS)
    res.writeHead(status, {
      'Content-Type': CONTENT_TYPE,
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
      'X-Request-Id': requestId,
    })
    res.end(body)
    logRefusal(requestId, req.method ?? 'unknown', status, req.method === 'HEAD' ? 0 : Buffer.byteLength(body))
  }
  /** Answers on a bare socket, and logs it. */
  const refuse = (socket: Duplex, method: string | undefined, status: number, text?: string) => {
    const requestId = randomUUID()
    const { bytes, bodyBytes } = refusal(status, requestId, text, method === 'HEAD')
    endWith(socket, bytes)
    logRefusal(requestId, method ?? 'unknown', status, bodyBytes)
  }
  /** Each connection's requests whose responses are not done yet, in order. */
  const inFlight = new WeakMap<Duplex, Map<ServerResponse, IncomingMessage>>()
  /** The parser reports its error again for every further chunk: one answer per connection. */
  const refused = new WeakSet<Duplex>()

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (refused.has(socket)) return
    refused.add(socket)
    // A connection the client already reset: nothing can be said on it.
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
    const pending = [...(inFlight.get(socket) ?? [])]
    const send = () => refuse(socket, refusedMethod(error), statusOf(error))
    if (pending.every(([, req]) => req.complete)) {
      // The fault is in a request after them (pipelined): the refusal follows their answers.
      return void afterAll(
        pending.map(([res]) => res),
        () => (socket.writable ? send() : socket.destroy()),
      )
    }
    // The fault is in the body of the request being answered: it is refused instead, unless its
    // answer has begun, which anything written now would corrupt.
    if (pending.some(([res]) => res.headersSent)) return void socket.destroy()
    send()
  })

  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => answer(req, res, 417))

  // Answered as every unknown method is (the app's JSON 404), instead of a silent close.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    // Node has handed the socket over with none of its listeners.
    socket.on('error', () => socket.destroy())
    refuse(socket, 'CONNECT', 404, 'Not Found')
    // Whatever the client still sends is read and dropped until it closes: unread bytes would
    // turn the close into a reset, which can discard the answer before the client reads it.
    socket.resume()
  })

  const handle =
    (listener: RequestListener): RequestListener =>
    (req, res) => {
      const requests = inFlight.get(req.socket) ?? new Map<ServerResponse, IncomingMessage>()
      inFlight.set(req.socket, requests)
      requests.set(res, req)
      res.once('close', () => requests.delete(res))
      // RFC 9112, section 3.2: a request in HTTP/1.1 without Host is refused with 400.
      if (req.httpVersion === '1.1' && req.headers.host === undefined) return answer(req, res, 400)
      listener(req, res)
    }
  return { handle }
}

/** Node's own status for each of its parser's errors. */
function statusOf(error: NodeJS.ErrnoException): number {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 431
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 413
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408
    default:
      return 400
  }
}

const CONTENT_TYPE = 'application/json; charset=utf-8'

const bodyOf = (status: number, text?: string) =>
  JSON.stringify(errorBody(status === 400 ? 'malformed_request' : genericErrorCode(status), text ?? STATUS_CODES[status] ?? 'Error'))

/**
 * The method of the request the parser gave up on, when the chunk it was parsing shows it: the
 * request line starts the chunk, or follows the blank line that ended the request before it.
 */
function refusedMethod(error: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }): string | undefined {
  const packet = error.rawPacket?.toString('latin1', 0, error.bytesParsed)
  if (packet === undefined) return undefined
  // Not the blank line that ends the refused request's own headers (an error found at their end).
  const previousEnd = packet.lastIndexOf('\r\n\r\n', packet.length - 5)
  return /^([A-Z]+) /.exec(previousEnd === -1 ? packet : packet.slice(previousEnd + 4))?.[1]
}

/**
 * A whole answer in bytes, for a socket without a response object. The answer to a HEAD has the
 * headers of the answer and no body (RFC 9110, section 9.3.2).
 */
function refusal(status: number, requestId: string, text?: string, head = false): { bytes: Buffer; bodyBytes: number } {
  const body = bodyOf(status, text)
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`]
  for (const [name, value] of SECURITY_HEADERS) lines.push(`${name}: ${value}`)
  lines.push(
    `Content-Type: ${CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${requestId}`,
  )
  return { bytes: Buffer.from(`${lines.join('\r\n')}\r\n\r\n${head ? '' : body}`), bodyBytes: head ? 0 : Buffer.byteLength(body) }
}

/** Runs `then` once every response is done (at once when there is none). */
function afterAll(responses: ServerResponse[], then: () => void): void {
  const open = responses.filter((res) => !res.closed)
  let waiting = open.length
  if (waiting === 0) return then()
  for (const res of open) res.once('close', () => --waiting === 0 && then())
}

/** How long a refused connection stays half-open for the client to read the answer and close. */
const LINGER_MS = 2_000

/**
 * Sends the answer and half-closes: the client reads it to the end. The socket closes when the
 * client closes its side, or after a short linger.
 */
function endWith(socket: Duplex, bytes: Buffer): void {
  socket.end(bytes)
  const linger = setTimeout(() => socket.destroy(), LINGER_MS)
  linger.unref()
  socket.once('close', () => clearTimeout(linger))
}
