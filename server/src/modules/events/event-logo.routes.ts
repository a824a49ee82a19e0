import { Router } from 'express'

import type { Services } from '../../context.js'
import { sendPlain } from '../../http/answers.js'
import { EVENT_LOGO } from './events.queries.js'
import { run } from '../../db/query.js'

/** A logo's URL names its hash: a new logo is a new URL, so every cache may keep this one for a year. */
const LOGO_CACHE_CONTROL = 'public, max-age=31536000, immutable'
const LOGO_FILE = /^([A-Za-z0-9_-]{22})\.png$/

/**
 * `GET /brand/<event id>/<hash>.png`: an event's logo, the PNG this service made from the one staff
 * gave (events' branding). Bytes, so Express serves them, as the photos' are; a hash that is not
 * the event's current logo is Not Found, as any unknown byte route is.
 */
export function eventLogoRoutes({ orm }: Pick<Services, 'orm'>): Router {
  const router = Router()
  router.get('/:eventId/:file', async (req, res, next) => {
    const hash = LOGO_FILE.exec(req.params.file)?.[1]
    if (!hash) return sendPlain(res, 404)
    try {
      const [row] = await run(orm.em.fork(), EVENT_LOGO, [req.params.eventId, hash])
      if (!row?.logo_png) return sendPlain(res, 404)
      res.set({
        'Content-Type': 'image/png',
        'Cache-Control': LOGO_CACHE_CONTROL,
        'Content-Length': String(row.logo_png.length),
        // Shown where the guest is, not only on this origin: in mail clients and on a kiosk served elsewhere (KIOSK_URL).
        'Cross-Origin-Resource-Policy': 'cross-origin',
      })
      res.end(row.logo_png)
    } catch (error) {
      next(error)
    }
  })
  return router
}
