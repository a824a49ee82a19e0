import { contract } from '@photobooth/sdk/contract'
import { Router, type Response } from 'express'

import type { Services } from '../context.js'
import { pendingMigrations } from '../db/orm.js'
import { expressPath } from './edge.js'

/** How long `/readyz` waits for the database before calling it unreachable. */
const DATABASE_CHECK_MS = 2_000

/**
 * For the load balancer and the orchestrator, beside the API (contract: `operations`): `GET /healthz`, the process answers;
 * `GET /readyz`, this instance should be sent requests (the database answers, every migration is
 * applied, and it is not draining after a SIGTERM). Never rate limited, never cached, nothing
 * about anyone in them.
 */
export function healthRoutes({ orm, logger, draining }: Pick<Services, 'orm' | 'logger' | 'draining'>): Router {
  // Once applied, migrations stay applied: asked until then, not on every probe.
  let migrated = false
  const answer = (res: Response, status: number, body: object) => void res.status(status).setHeader('Cache-Control', 'no-store').json(body)
  const router = Router()
  router.get(expressPath(contract.operations.live), (_req, res) => answer(res, 200, { status: 'ok' }))
  router.get(expressPath(contract.operations.ready), async (_req, res) => {
    if (draining()) return answer(res, 503, { error: 'draining' })
    try {
      await withTimeout(orm.em.getConnection().execute('select 1'), DATABASE_CHECK_MS)
      migrated ||= (await withTimeout(pendingMigrations(orm), DATABASE_CHECK_MS)).length === 0
    } catch (error) {
      logger.error('not ready: the database does not answer', error)
      return answer(res, 503, { error: 'database unreachable' })
    }
    if (!migrated) return answer(res, 503, { error: 'migrations pending' })
    answer(res, 200, { status: 'ready' })
  })
  return router
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
