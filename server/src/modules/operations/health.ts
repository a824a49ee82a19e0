import { contract } from '@photobooth/sdk/contract'
import { Router, type Response } from 'express'

import type { Services } from '../../context.js'
import { PING } from '../../db/db.queries.js'
import { pendingMigrations } from '../../db/orm.js'
import { describeError } from '../../logger.js'
import type { PhotoStorage } from '../storage/index.js'
import { withTimeout } from '../../timeouts.js'
import { errorBody, sendError } from '../../http/answers.js'
import { expressPath } from '../../http/edge.js'

/** How long `/readyz` waits for the database before calling it unreachable. */
const DATABASE_CHECK_MS = 2_000

/** Storage is asked at most this often, whatever the probes' pace: a check is a request to the bucket. */
const STORAGE_CHECK_INTERVAL_MS = 5_000
const STORAGE_CHECK_MS = 2_000
/** Checks in a row that must agree before storage is called down, or up again: one blip does not flap. */
const STORAGE_CHECKS_TO_CHANGE = 2

/**
 * For the load balancer and the orchestrator, beside the API (contract: `operations`): `GET /healthz`, the process answers;
 * `GET /readyz`, this instance should be sent requests: the database answers, every migration is
 * applied, and it is not draining after a SIGTERM. Never rate limited, never cached, nothing about
 * anyone in them. Storage is not part of it, nor Redis: when the bucket is away every instance
 * meets the same outage, and taking them all out would stop registrations, the kiosk's context,
 * galleries and staff, which need only the database, along with the uploads and downloads that need
 * storage (those answer 503 on their own). Its state is checked here all the same (cached, at the
 * probes' pace), for `photobooth_dependency_up` and its alert.
 */
export function healthRoutes({ orm, logger, draining, storage, metrics, rateLimitCounts }: Services): Router {
  // Once applied, migrations stay applied: asked until then, not on every probe.
  let migrated = false
  // A failed check is counted by the storage adapter, as every failed storage call is.
  const storageUp = storage ? storageHealth(storage, logger) : () => true
  const answer = (res: Response, notReady?: string) => {
    metrics.ready.set(notReady ? 0 : 1)
    res.setHeader('Cache-Control', 'no-store')
    if (notReady) return sendError(res, 503, errorBody('not_ready', notReady))
    res.status(200).json({ status: 'ready' })
  }
  const router = Router()
  router.get(
    expressPath(contract.operations.live),
    (_req, res) => void res.status(200).setHeader('Cache-Control', 'no-store').json({ status: 'ok' }),
  )
  router.get(expressPath(contract.operations.ready), async (_req, res) => {
    if (rateLimitCounts) metrics.dependencyUp.set({ dependency: 'redis' }, rateLimitCounts.isUp() ? 1 : 0)
    if (storage) metrics.dependencyUp.set({ dependency: 'storage' }, storageUp() ? 1 : 0)
    if (draining()) return answer(res, 'draining')
    try {
      await withTimeout(orm.em.fork().execute(PING), DATABASE_CHECK_MS)
      migrated ||= (await withTimeout(pendingMigrations(orm), DATABASE_CHECK_MS)).length === 0
      metrics.dependencyUp.set({ dependency: 'database' }, 1)
    } catch (error) {
      metrics.dependencyUp.set({ dependency: 'database' }, 0)
      metrics.dependencyErrors.inc({ dependency: 'database' })
      logger.warn('not ready: the database does not answer', { error: describeError(error) })
      return answer(res, 'database unreachable')
    }
    if (!migrated) return answer(res, 'migrations pending')
    answer(res)
  })
  return router
}

/**
 * Whether storage answers, as its last checks said: a probe starts a check when the last is older
 * than the interval and answers with what is known, never waiting on the bucket. The state changes
 * only when `STORAGE_CHECKS_TO_CHANGE` checks in a row say so.
 */
function storageHealth(storage: PhotoStorage, logger: Services['logger']): () => boolean {
  let up = true
  let streak = 0
  let checkedAt = -Infinity
  let checking = false
  const settle = (answered: boolean, error?: unknown) => {
    checking = false
    streak = answered === up ? 0 : streak + 1
    if (streak < STORAGE_CHECKS_TO_CHANGE) return
    up = answered
    streak = 0
    if (up) logger.info('storage answers again')
    else
      logger.warn('storage does not answer: uploads, completions, downloads and zips answer 503 meanwhile', { error: describeError(error) })
  }
  return () => {
    if (!checking && performance.now() - checkedAt >= STORAGE_CHECK_INTERVAL_MS) {
      checking = true
      checkedAt = performance.now()
      withTimeout(storage.check(), STORAGE_CHECK_MS).then(
        () => settle(true),
        (error: unknown) => settle(false, error),
      )
    }
    return up
  }
}
