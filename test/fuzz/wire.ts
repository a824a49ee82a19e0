/**
 * Sending a request and reading every answer to it: through `http.request` when Node's client can
 * express the request, else byte for byte over a raw socket (`node:net`) for what no client sends:
 * raw spaces and control bytes, bad header bytes, odd methods and versions, bodies longer or
 * shorter than their Content-Length, malformed chunking.
 */
import { Agent, request as httpRequest, type ClientRequest } from 'node:http'
import { connect } from 'node:net'

/** How the body is delimited on the wire. Only `length` and `chunked` are expressible through `http.request`. */
export type Framing =
  | 'length' // Content-Length: exact
  | 'chunked' // Transfer-Encoding: chunked, no Content-Length
  | 'none' // neither header: the body bytes become a second (garbage) request
  | 'short-length' // Content-Length: half the body: the rest trails as a second request
  | 'long-length' // Content-Length: 10 more than sent: the server waits for bytes that never come
  | 'length+chunked' // both headers (a smuggling pattern)
  | 'two-lengths' // two different Content-Length headers
  | 'bad-length' // Content-Length: 1x
  | 'bad-chunk' // a chunk size that is not hexadecimal

export const FRAMINGS: readonly Framing[] = [
  'length',
  'chunked',
  'none',
  'short-length',
  'long-length',
  'length+chunked',
  'two-lengths',
  'bad-length',
  'bad-chunk',
]

export type WireRequest = {
  method: string
  /** The request-target exactly as it goes on the request line. */
  target: string
  /** `HTTP/1.1` unless the case says otherwise (raw only). */
  version: string
  /** Without framing headers (added from `framing`), Host included when the case wants one. */
  headers: [string, string][]
  body: Buffer | undefined
  framing: Framing
  /** How the request line and headers become bytes (raw only): UTF-8, or one byte per code unit. */
  headEncoding: 'utf8' | 'latin1'
  /** Once answered, send PROBE on the same connection: the server must first read this request to its end. */
  probe: boolean
}

/** The keep-alive probe: a request every server state answers, sent after the fuzzed one. */
export const PROBE = { method: 'HEAD', target: '/openapi.json' } as const

export type ParsedResponse = {
  status: number
  reason: string
  /** Lower-case names; repeated headers keep every value. */
  headers: Record<string, string[]>
  body: Buffer
  /** The request it answers: ours, the probe, or (undefined) trailing bytes the server read as another request. */
  answers?: { method: string; target: string }
  /** Bytes that followed a bodiless answer (to a HEAD, a 204 or a 304) and are no HTTP answer: a body it should not have. */
  bodyAfterBodiless?: Buffer
}

export type Exchange = {
  via: 'http' | 'raw'
  /** Final answers in order (1xx interim answers left out). */
  responses: ParsedResponse[]
  /** How the connection ended: closed by the server, reset, our timeout, or we closed it once answered. */
  ending: 'closed' | 'reset' | 'timeout' | 'done'
  /** An answer that started but did not finish before the connection ended (raw only). */
  truncated?: string
  /** The request did not all go out (the server closed or reset the connection while we were sending). */
  notAllSent: boolean
  ms: number
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// What `http.request` accepts without throwing: see ERR_UNESCAPED_CHARACTERS and ERR_INVALID_CHAR.
const HTTP_PATH = /^[\u0021-\u00ff]*$/
const HTTP_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/

/** Whether Node's own client can send this request as it is. */
export function expressibleThroughHttp(request: WireRequest): boolean {
  return (
    TOKEN.test(request.method) &&
    request.method === request.method.toUpperCase() &&
    request.method !== 'CONNECT' &&
    request.version === 'HTTP/1.1' &&
    request.target.startsWith('/') &&
    HTTP_PATH.test(request.target) &&
    (request.framing === 'length' || request.framing === 'chunked') &&
    request.headers.some(([name]) => name.toLowerCase() === 'host') &&
    request.headers.every(
      ([name, value]) =>
        TOKEN.test(name) &&
        HTTP_VALUE.test(value) &&
        value === value.trim() &&
        !['content-length', 'transfer-encoding', 'connection', 'expect'].includes(name.toLowerCase()),
    ) &&
    new Set(request.headers.map(([name]) => name.toLowerCase())).size === request.headers.length
  )
}

export async function send(baseUrl: string, request: WireRequest, via: 'http' | 'raw', timeoutMs: number): Promise<Exchange> {
  const { hostname, port } = new URL(baseUrl)
  return via === 'http' && expressibleThroughHttp(request)
    ? sendThroughHttp(hostname, Number(port), request, timeoutMs)
    : sendRaw(hostname, Number(port), request, timeoutMs)
}

function sendThroughHttp(host: string, port: number, request: WireRequest, timeoutMs: number): Promise<Exchange> {
  const started = Date.now()
  const agent = new Agent({ keepAlive: request.probe, maxSockets: 1 })
  const responses: ParsedResponse[] = []
  let notAllSent = false
  let pending: ClientRequest | undefined

  const one = (method: string, target: string, headers: Record<string, string>, body: Buffer | undefined) =>
    new Promise<ParsedResponse>((resolve, reject) => {
      const req = httpRequest({ host, port, method, path: target, headers, agent, setHost: false })
      pending = req
      req.on('response', (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () => {
          const responseHeaders: Record<string, string[]> = {}
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            ;(responseHeaders[res.rawHeaders[i]!.toLowerCase()] ??= []).push(res.rawHeaders[i + 1]!)
          }
          resolve({
            status: res.statusCode!,
            reason: res.statusMessage ?? '',
            headers: responseHeaders,
            body: Buffer.concat(chunks),
            answers: { method, target },
          })
        })
      })
      req.on('error', reject)
      if (body) req.end(body)
      else req.end()
    })

  const exchange = async (): Promise<Exchange['ending']> => {
    const headers: Record<string, string> = {}
    for (const [name, value] of request.headers) headers[name] = value
    if (request.body && request.framing === 'length') headers['Content-Length'] = String(request.body.length)
    try {
      responses.push(await one(request.method, request.target, headers, request.body))
    } catch (error) {
      notAllSent = responses.length === 0
      return (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE'
        ? 'reset'
        : 'closed'
    }
    const closing = responses[0]!.headers.connection?.some((value) => /close/i.test(value))
    if (request.probe && !closing) {
      const host = request.headers.find(([name]) => name.toLowerCase() === 'host')?.[1] ?? 'localhost'
      try {
        responses.push(await one(PROBE.method, PROBE.target, { Host: host }, undefined))
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? 'reset' : 'closed'
      }
    }
    return 'done'
  }

  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<Exchange['ending']>((resolve) => {
    timer = setTimeout(() => {
      pending?.destroy()
      resolve('timeout')
    }, timeoutMs)
  })
  return Promise.race([exchange(), timeout]).then((ending) => {
    clearTimeout(timer)
    agent.destroy()
    return { via: 'http', responses, ending, notAllSent, ms: Date.now() - started }
  })
}

/** The request's bytes as they go on the wire, framing included. */
export function encodeRaw(request: WireRequest): Buffer {
  const body = request.body ?? Buffer.alloc(0)
  const lines = [`${request.method} ${request.target} ${request.version}`, ...request.headers.map(([name, value]) => `${name}: ${value}`)]
  let framedBody = body
  const chunked = () => {
    const parts: Buffer[] = []
    for (let at = 0; at < body.length; at += 16_384) {
      const chunk = body.subarray(at, at + 16_384)
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'))
    }
    parts.push(Buffer.from('0\r\n\r\n'))
    return Buffer.concat(parts)
  }
  switch (request.framing) {
    case 'length':
      if (request.body || !['GET', 'HEAD'].includes(request.method)) lines.push(`Content-Length: ${body.length}`)
      break
    case 'chunked':
      lines.push('Transfer-Encoding: chunked')
      framedBody = chunked()
      break
    case 'none':
      break
    case 'short-length':
      lines.push(`Content-Length: ${Math.floor(body.length / 2)}`)
      break
    case 'long-length':
      lines.push(`Content-Length: ${body.length + 10}`)
      break
    case 'length+chunked':
      lines.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked')
      framedBody = chunked()
      break
    case 'two-lengths':
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`)
      break
    case 'bad-length':
      lines.push('Content-Length: 1x')
      break
    case 'bad-chunk':
      lines.push('Transfer-Encoding: chunked')
      framedBody = Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')])
      break
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, request.headEncoding)
  return Buffer.concat([head, framedBody])
}

/** Whether the bytes sent carry more than one request's worth (a second, garbage request trails). */
function trails(request: WireRequest): boolean {
  const length = request.body?.length ?? 0
  return length > 0 && (request.framing === 'none' || request.framing === 'short-length')
}

function sendRaw(host: string, port: number, request: WireRequest, timeoutMs: number): Promise<Exchange> {
  const started = Date.now()
  const bytes = encodeRaw(request)
  const hostHeader = request.headers.find(([name]) => name.toLowerCase() === 'host')?.[1] ?? 'localhost'
  const probe = Buffer.from(`${PROBE.method} ${PROBE.target} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`, 'latin1')
  const answered = [{ method: request.method, target: request.target }]
  // A server waiting for the rest of a body may rightly never answer: give it a moment only.
  const patience = request.framing === 'long-length' ? Math.min(timeoutMs, 500) : timeoutMs
  return new Promise((resolve) => {
    const received: Buffer[] = []
    let notAllSent = false
    let settled = false
    let grace: NodeJS.Timeout | undefined
    const socket = connect({ host, port })
    const parse = () => parseResponses(Buffer.concat(received), answered)
    const finish = (ending: Exchange['ending']) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(grace)
      socket.destroy()
      const parsed = parse()
      resolve({ via: 'raw', responses: parsed.responses, truncated: parsed.truncated, ending, notAllSent, ms: Date.now() - started })
    }
    const timer = setTimeout(() => finish(request.framing === 'long-length' && received.length === 0 ? 'done' : 'timeout'), patience)
    socket.on('connect', () => {
      socket.write(bytes, (error) => {
        if (error) notAllSent = true
      })
    })
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk)
      const parsed = parse()
      if (parsed.truncated !== undefined || parsed.openEnded || parsed.responses.length === 0) return
      const last = parsed.responses.at(-1)!
      if (last.headers.connection?.some((value) => /close/i.test(value))) return // the server closes: wait for it
      // Not after a body that is still owed ('long-length'): the probe would be read as its end.
      if (request.probe && answered.length === 1 && !trails(request) && request.framing !== 'long-length') {
        answered.push(PROBE)
        socket.write(probe)
        return
      }
      if (answered.length > 1 && parsed.responses.length < answered.length) return
      // Complete. If a second request trails, its answer (Node's 400) follows at once.
      clearTimeout(grace)
      grace = setTimeout(() => finish('done'), trails(request) ? 50 : 0)
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') notAllSent ||= socket.bytesWritten < bytes.length
      finish(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : 'closed')
    })
    socket.on('end', () => finish('closed'))
    socket.on('close', () => finish('closed'))
  })
}

/**
 * HTTP/1.1 answers, one after another, from everything read on a connection. The n-th final
 * answer answers `requests[n]` (no body after a HEAD), if any; 1xx interim answers are skipped.
 */
export function parseResponses(
  data: Buffer,
  requests: readonly { method: string; target: string }[],
): { responses: ParsedResponse[]; truncated?: string; openEnded?: boolean } {
  const responses: ParsedResponse[] = []
  let at = 0
  while (at < data.length) {
    const previous = responses.at(-1)
    if (
      previous &&
      previous.body.length === 0 &&
      (previous.answers?.method === 'HEAD' || previous.status === 204 || previous.status === 304) &&
      !data.subarray(at, at + 5).equals(Buffer.from('HTTP/'))
    ) {
      previous.bodyAfterBodiless = data.subarray(at)
      return { responses }
    }
    const headEnd = data.indexOf('\r\n\r\n', at)
    if (headEnd < 0) return { responses, truncated: data.subarray(at, at + 200).toString('latin1') }
    const [statusLine = '', ...headerLines] = data.subarray(at, headEnd).toString('latin1').split('\r\n')
    const match = /^HTTP\/\d\.\d (\d{3})(?: (.*))?$/.exec(statusLine)
    if (!match) return { responses, truncated: `not an HTTP answer: ${JSON.stringify(statusLine.slice(0, 200))}` }
    const status = Number(match[1])
    const headers: Record<string, string[]> = {}
    for (const line of headerLines) {
      const colon = line.indexOf(':')
      ;(headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim())
    }
    at = headEnd + 4
    if (status < 200) continue // 100 Continue and the like: the final answer follows
    const answers = requests[responses.length]
    const bodiless = answers?.method === 'HEAD' || status === 204 || status === 304
    let body: Buffer = Buffer.alloc(0)
    if (!bodiless) {
      if (headers['transfer-encoding']?.some((value) => /chunked/i.test(value))) {
        const chunks: Buffer[] = []
        for (;;) {
          const lineEnd = data.indexOf('\r\n', at)
          if (lineEnd < 0) return { responses, truncated: `${status} with a chunked body cut short` }
          const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16)
          if (!Number.isFinite(size)) return { responses, truncated: `${status} with a bad chunk size` }
          at = lineEnd + 2
          if (size === 0) {
            const trailerEnd = data.indexOf('\r\n', at)
            if (trailerEnd < 0) return { responses, truncated: `${status} with a chunked body cut short` }
            at = trailerEnd + 2
            break
          }
          if (at + size + 2 > data.length) return { responses, truncated: `${status} with a chunked body cut short` }
          chunks.push(data.subarray(at, at + size))
          at += size + 2
        }
        body = Buffer.concat(chunks)
      } else if (headers['content-length']) {
        const length = Number(headers['content-length'][0])
        if (at + length > data.length) return { responses, truncated: `${status} with ${data.length - at} of ${length} bytes` }
        body = data.subarray(at, at + length)
        at += length
      } else {
        // Delimited by the end of the connection.
        responses.push({ status, reason: match[2] ?? '', headers, body: data.subarray(at), answers })
        return { responses, openEnded: true }
      }
    }
    responses.push({ status, reason: match[2] ?? '', headers, body, answers })
  }
  return { responses }
}
