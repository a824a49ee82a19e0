import { randomUUID } from 'node:crypto'

import type { RequestHandler } from 'express'

import { requestContext } from '../logger.js'

/**
 * A client's own id is kept only when it is a UUID: the id is stored in the audit trail for a year
 * and written on every log line, and anything else a client sends there (an email address was) would
 * be kept as long. Case-insensitive, any version.
 */
const CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * `X-Request-Id` on every answer: the client's own when it sent a UUID (a booth app, or a proxy in
 * front), else a new UUID. The SDK gives it on every error (`ApiError.requestId`), so an app's report
 * names the request.
 */
export const requestId =
  (header: string): RequestHandler =>
  (req, res, next) => {
    const given = req.headers[header.toLowerCase()]
    const id = typeof given === 'string' && CLIENT_ID.test(given) ? given.toLowerCase() : randomUUID()
    res.setHeader('X-Request-Id', id)
    // Every line logged for this request, wherever in its handling, carries its id.
    requestContext.run({ requestId: id }, next)
  }
