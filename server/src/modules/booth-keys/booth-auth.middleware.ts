import type { IncomingMessage } from 'node:http'

import type { RequestHandler } from 'express'

import type { Services } from '../../context.js'
import { errorBody, sendError, sendPlain } from '../../http/answers.js'
import { authenticateBoothKey, type BoothCaller } from './booth-keys.service.js'

/** RFC 6750: the scheme (any case), one space, a b64token, nothing else. */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i

const callers = new WeakMap<IncomingMessage, BoothCaller>()

/** The booth whose key authenticated this request (booth routes only). */
export const boothOf = (req: IncomingMessage): BoothCaller | undefined => callers.get(req)

/**
 * Guards every /booth route: 401 `Unauthorized` (plain text) for a missing, unknown or revoked
 * key, 400 for a header that is not one Bearer token. The booth is then `boothOf(req)`.
 */
export function boothAuthentication(deps: Pick<Services, 'orm' | 'now'>): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization
    if (header === undefined) return sendPlain(res, 401)
    const token = BEARER.exec(header)?.[1]
    if (token === undefined)
      return sendError(res, 400, errorBody('malformed_authorization', 'Malformed Authorization header: expected "Bearer <booth key>"'))
    try {
      const caller = await authenticateBoothKey(deps.orm.em.fork(), token, deps.now())
      if (!caller) return sendPlain(res, 401)
      callers.set(req, caller)
      next()
    } catch (error) {
      next(error)
    }
  }
}
