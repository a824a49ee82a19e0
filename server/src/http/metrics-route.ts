import { timingSafeEqual } from 'node:crypto'

import { Router } from 'express'

import type { Services } from '../context.js'
import { errorBody, sendError } from './answers.js'

/** The scheme is case-insensitive (RFC 9110 §11.1), followed by one space or more. */
const BEARER = /^bearer +(.*)$/i

/**
 * `GET /metrics` in Prometheus' text format, only when `METRICS_TOKEN` is set, and only to a
 * scraper that sends it (`Authorization: Bearer <token>`): route names, counts and pool sizes are
 * not for the public. Unset, the path is like any other unknown one (404).
 */
export function metricsRoute(token: string, metrics: Services['metrics']): Router {
  const router = Router()
  const expected = Buffer.from(token)
  router.get('/metrics', async (req, res) => {
    const given = Buffer.from(BEARER.exec(req.headers.authorization ?? '')?.[1] ?? '')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"')
      return sendError(res, 401, errorBody('unauthorized', 'Unauthorized'))
    }
    res
      .setHeader('Cache-Control', 'no-store')
      .type(metrics.registry.contentType)
      .send(await metrics.scrape())
  })
  return router
}
