import { randomUUID } from 'node:crypto'

import type { RequestHandler } from 'express'

import { requestContext } from '../logger.js'

/** A client's own id is kept when it is sane: 1 to 128 visible ASCII characters, nothing a log could choke on. */
const SANE_ID = /^[\x21-\x7e]{1,128}$/

/**
 * `X-Request-Id` on every answer: the client's own when it sent a sane one (a booth app, or a proxy
 * in front), else a new UUID. The SDK gives it on every error (`ApiError.requestId`), so an app's
 * report names the request.
 */
export const requestId =
  (header: string): RequestHandler =>
  (req, res, next) => {
    const given = req.headers[header.toLowerCase()]
    const id = typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID()
    res.setHeader('X-Request-Id', id)
    // Every line logged for this request, wherever in its handling, carries its id.
    requestContext.run({ requestId: id }, next)
  }
