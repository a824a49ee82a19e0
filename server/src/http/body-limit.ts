import type { IncomingMessage, ServerResponse } from 'node:http'
import { isUtf8 } from 'node:buffer'
import { Readable } from 'node:stream'

import { toStandardBody } from '@orpc/standard-server-node'
import type { RequestHandler } from 'express'

import { AppError } from '../errors.js'

/** Requests whose body already has a route's own, smaller limit. */
const bodyLimited = new WeakSet<IncomingMessage>()

/**
 * Cuts a body off past `maxBytes`, whether or not a Content-Length was sent. oRPC takes a request's
 * `body` when one is set, so the body is offered there, read only when oRPC asks for it: a route that
 * does not match never reads it, and Node discards it. The refusal is a rejected read that oRPC answers
 * (400 by default: only the contact form answers 413, as documented); nothing is thrown into Node's
 * stream events, where no one could catch it.
 */
export function limitBody(req: IncomingMessage, res: ServerResponse, maxBytes: number, refusals: Partial<Refusals> = {}): void {
  if (bodyLimited.has(req)) return
  bodyLimited.add(req)
  const refuse: Refusals = {
    tooLarge: () => new AppError('body_too_large', `Request body too large: at most ${maxBytes} bytes`),
    notText: () => new AppError('not_utf8', NOT_UTF8),
    ...refusals,
  }
  let body: Promise<unknown> | undefined
  Object.defineProperty(req, 'body', {
    configurable: true,
    get: () => (body ??= parseLimited(req, res, maxBytes, refuse)),
    // A body parser that sets its own result replaces the lazy one.
    set: (value: unknown) => void Object.defineProperty(req, 'body', { value, writable: true, configurable: true, enumerable: true }),
  })
}

/**
 * The answers to a body over the limit, to a text body that is not UTF-8, and (when given) to one that
 * does not parse as its media type (otherwise oRPC's own 400, `malformed_request`).
 */
type Refusals = { tooLarge: () => AppError; notText: () => AppError; unreadable?: () => AppError }

async function parseLimited(req: IncomingMessage, res: ServerResponse, maxBytes: number, refuse: Refusals) {
  const raw = await readLimited(req, maxBytes)
  if (raw === 'too large') {
    // The rest of the body is not read: the connection cannot carry another request.
    if (!res.headersSent) res.setHeader('Connection', 'close')
    throw refuse.tooLarge()
  }
  if (!isText(req.headers['content-type'], raw)) throw refuse.notText()
  // oRPC's own parser, by content type, over the bytes already read.
  const parsed = toStandardBody(
    Object.assign(Readable.from(raw.length > 0 ? [raw] : []), { headers: req.headers }) as unknown as IncomingMessage,
  )
  const { unreadable } = refuse
  return unreadable
    ? parsed.catch(() => {
        throw unreadable()
      })
    : parsed
}

/** A route's own body limit (its contract entry's `body` policy), with its one refusal for any body it cannot take. */
export function limitedBody(maxBytes: number, refused: () => AppError): RequestHandler {
  return (req, res, next) => {
    limitBody(req, res, maxBytes, { tooLarge: refused, notText: refused, unreadable: refused })
    next()
  }
}

export const NOT_UTF8 = 'The body is not valid UTF-8'

/**
 * False for a text body (JSON, form, text/*) whose bytes are not UTF-8: decoded, each bad sequence
 * would become U+FFFD and be stored as such, a text other than the one sent. Other media types are
 * not text and pass.
 */
export function isText(contentType: string | undefined, raw: Buffer): boolean {
  const type = (contentType ?? '').toLowerCase()
  const textual = type.includes('json') || type.startsWith('text/') || type.startsWith('application/x-www-form-urlencoded')
  return !textual || isUtf8(raw)
}

export function readLimited(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too large'> {
  if (Number(req.headers['content-length']) > maxBytes) return Promise.resolve('too large')
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    const settle = (outcome: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone)
      outcome()
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received <= maxBytes) return void chunks.push(chunk)
      // Discarded from here on, not left unread: closing a socket with unread bytes resets it,
      // and the client would lose the answer.
      settle(() => resolve('too large'))
      req.resume()
    }
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks)))
    const onGone = () => settle(() => reject(new AppError('malformed_request', 'The request body ended before it was complete')))
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone)
  })
}

/**
 * For the routes that answer their own words for any bad body: the body reaches the procedure as
 * text, whatever the declared type (a beacon sends text/plain; malformed JSON must not become oRPC's
 * generic message), and is cut at `maxBytes` on its raw bytes, with or without a Content-Length.
 */
export function textBody(maxBytes: number, refusals: Refusals): RequestHandler {
  return (req, res, next) => {
    req.headers['content-type'] = 'text/plain; charset=utf-8'
    limitBody(req, res, maxBytes, refusals)
    next()
  }
}
