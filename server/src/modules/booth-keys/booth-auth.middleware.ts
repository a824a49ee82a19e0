import type { MikroORM } from '@mikro-orm/postgresql'
import type { RequestHandler, Response } from 'express'

import { authenticateBoothKey } from './booth-keys.service.js'

/** RFC 6750: the scheme (any case), one space, a b64token, nothing else. */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i

const unauthorized = (res: Response) => res.status(401).type('text/plain').send('Unauthorized')

/**
 * Guards every /booth route: 401 `Unauthorized` (plain text) for a missing, unknown or revoked
 * key, 400 for a header that is not one Bearer token. The booth is left in `res.locals.caller`.
 */
export function boothAuthentication(orm: MikroORM, now: () => Date): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization
    if (header === undefined) return void unauthorized(res)
    const token = BEARER.exec(header)?.[1]
    if (token === undefined) {
      return void res.status(400).json({ error: 'Malformed Authorization header: expected "Bearer <booth key>"' })
    }
    try {
      const caller = await authenticateBoothKey(orm.em.fork(), token, now())
      if (!caller) return void unauthorized(res)
      res.locals.caller = caller
      next()
    } catch (error) {
      next(error)
    }
  }
}
