import { timingSafeEqual } from 'node:crypto'

import { Router } from 'express'

import type { Services } from '../context.js'
import { sendError } from './answers.js'

/**
 * `GET /metrics` in Prometheus' text format, only when `METRICS_TOKEN` is set, and only to a
 * scraper that sends it (`Authorization: Bearer <token>`): route names, counts and pool sizes are
 * not for the public. Unset, the path is like any other unknown one (404).
 */
export function metricsRoute(token: string, metrics: Services['metrics']): Router {
  const router = Router()
  const expected = Buffer.from(`Bearer ${token}`)
  router.get('/metrics', async (req, res) => {
    const given = Buffer.from(req.headers.authorization ?? '')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return sendError(res, 401, { error: 'Unauthorized' })
    res.setHeader('Cache-Control', 'no-store').type(metrics.registry.contentType).send(await metrics.registry.metrics())
  })
  return router
}
