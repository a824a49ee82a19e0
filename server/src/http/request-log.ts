import type { Request, RequestHandler, Response } from 'express'

import { requestContext, type Logger } from '../logger.js'
import { routeMatched } from './edge.js'
import type { Metrics } from '../metrics.js'
import { staffOf } from '../modules/staff/index.js'

/**
 * The route pattern that answered (`/gallery/:sessionId`), never the path itself: a path holds ids
 * and a query string may hold an upload's signature. The contract's routes are matched by the edge
 * policies' router (edge.ts), so that oRPC's answers have one; Express's own routes (pages, bytes,
 * health) name theirs.
 */
export function routeOf(req: Request): string {
  const matched = routeMatched.get(req)
  if (matched) return matched
  const path = (req.route as { path?: unknown } | undefined)?.path
  // Under a mounted router (`/photos`), its mount path and the route's own.
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched'
}

/** A request's line: what it was (never the path or a client's data), and how it was answered. */
export type RequestLine = {
  method: string
  route: string
  status: number
  durationMs: number
  bytes: number
  aborted?: true
  member?: string
}

/**
 * Writes a request's line at info, with its duration in the request histogram by the same method,
 * route and status: for the app's requests (`requestLog`) and for those Node refuses before the app
 * sees them (node-refusals.ts).
 */
export function requestLines(logger: Logger, metrics: Pick<Metrics, 'requestDuration'>): (line: RequestLine) => void {
  return (line) => {
    metrics.requestDuration.observe({ method: line.method, route: line.route, status: line.status }, line.durationMs / 1000)
    logger.info('request', line)
  }
}

/**
 * One line per request, once its answer is done (or its connection closed first): method, route
 * pattern, status (499 when the client left before any answer), duration, body bytes sent, and the
 * request id (as every line logged while it was handled), and a staff request's member id. Nothing
 * else about the client: no IP, no query string, no header.
 */
export function requestLog(logger: Logger, metrics: Pick<Metrics, 'requestDuration'>): RequestHandler {
  const write = requestLines(logger, metrics)
  return (req, res, next) => {
    // As the client asked: the API's handler answers a HEAD as its GET, and says so in req.method (app.ts).
    const { method } = req
    const started = process.hrtime.bigint()
    const context = requestContext.getStore()
    const bytes = countBodyBytes(res)
    res.once('close', () => {
      const line: RequestLine = {
        method,
        route: routeOf(req),
        status: res.headersSent ? res.statusCode : CLIENT_CLOSED,
        durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        // Node writes no body for a HEAD, whatever the handler passed it.
        bytes: method === 'HEAD' ? 0 : bytes(),
        ...(res.writableFinished ? {} : { aborted: true }),
        // Who acted, for a staff request: the member's id (never their name or address).
        ...(staffOf(req) ? { member: staffOf(req)!.memberId } : {}),
      }
      if (context) requestContext.run(context, () => write(line))
      else write(line)
    })
    next()
  }
}

/** The client went away before any answer was sent: nothing was answered (nginx's 499). */
const CLIENT_CLOSED = 499

/** The body's bytes as written to the connection (after compression, when a page is compressed). */
function countBodyBytes(res: Response): () => number {
  let sent = 0
  const write = res.write.bind(res) as Loose
  const end = res.end.bind(res) as Loose
  res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    sent += byteLength(chunk, encoding)
    return write(chunk, encoding, callback)
  }) as Response['write']
  res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
    sent += byteLength(chunk, encoding)
    return end(chunk, encoding, callback)
  }) as Response['end']
  return () => sent
}

type Loose = (chunk: unknown, encoding: unknown, callback: unknown) => unknown

const byteLength = (chunk: unknown, encoding: unknown): number => {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
  return chunk instanceof Uint8Array ? chunk.byteLength : 0
}
