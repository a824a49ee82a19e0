import { contract } from '@photobooth/sdk/contract'
import { PathKey } from '@photobooth/sdk/schemas'
import { Router } from 'express'
import { z } from 'zod'

import type { Services } from '../../context.js'
import { AppError, encodeErrorBody } from '../../errors.js'
import { errorBody, sendError, sendInvalid } from '../../http/answers.js'
import { expressPath } from '../../http/edge.js'
import { sendChunks } from '../gallery/index.js'
import { roleRefusal, staffOf } from '../staff/index.js'
import { exportGuestsCsv } from './guests-csv.service.js'

/**
 * The guest export (contract: `staffExports`), answered by Express: a large event's CSV is written
 * page by page as it is read, which oRPC's JSON handler does not do. Mounted after the staff
 * authentication of /staff.
 */
const INPUT = z.object({ eventId: PathKey })

export function guestsCsvRoutes(services: Pick<Services, 'orm' | 'config' | 'logger'>): Router {
  const router = Router()
  router.get(expressPath(contract.staff.events.exportGuests), async (req, res, next) => {
    const refusal = roleRefusal(staffOf(req)!.role, contract.staff.events.exportGuests['~orpc'].meta.role)
    if (refusal) return sendError(res, 403, errorBody('insufficient_role', refusal))
    const abort = new AbortController()
    res.once('close', () => abort.abort())
    // The path parameter as oRPC's routes check theirs: a control character or 201 characters is bad input.
    const input = INPUT.safeParse(req.params)
    if (!input.success) return sendInvalid(res, input.error.issues)
    const { eventId } = input.data
    let csv
    try {
      csv = await exportGuestsCsv({ em: services.orm.em.fork(), config: services.config }, { eventId, signal: abort.signal })
    } catch (error) {
      if (error instanceof AppError) return sendError(res, error.status, encodeErrorBody(error))
      return next(error)
    }
    res.writeHead(200, csv.headers)
    // A HEAD reads no guest.
    if (req.method === 'HEAD') return void res.end()
    await sendChunks(csv.body, res, () => {}, abort.signal).catch((error: unknown) => {
      if (!abort.signal.aborted) services.logger.error('guest export failed after it started', error)
    })
  })
  return router
}
