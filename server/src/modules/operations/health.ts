import type { MikroORM } from '@mikro-orm/postgresql'

import type { AppContext } from '../../context.js'
import { PING } from '../../db/db.queries.js'
import { pendingMigrations } from '../../db/orm.js'
import { AppError } from '../../errors.js'
import { describeError } from '../../logger.js'
import { api } from '../../orpc.js'
import type { PhotoStorage } from '../storage/index.js'
import { withTimeout } from '../../timeouts.js'
import { run } from '../../db/query.js'

/** How long `/readyz` waits for the database before calling it unreachable. */
const DATABASE_CHECK_MS = 2_000

/** Storage is asked at most this often, whatever the probes' pace: a check is a request to the bucket. */
const STORAGE_CHECK_INTERVAL_MS = 5_000
const STORAGE_CHECK_MS = 2_000
/** Checks in a row that must agree before storage is called down, or up again: one blip does not flap. */
const STORAGE_CHECKS_TO_CHANGE = 2

/** Once applied, migrations stay applied: asked of a database until then, not on every probe. */
const migrated = new WeakSet<MikroORM>()
/** Each storage's health, as its last checks said (one per instance's storage). */
const storageStates = new WeakMap<PhotoStorage, () => boolean>()

/**
 * For the load balancer and the orchestrator (contract: `operations`): `GET /healthz`, the process answers;
 * `GET /readyz`, this instance should be sent requests: the database answers, every migration is
 * applied, and it is not draining after a SIGTERM. Never rate limited, never cached, nothing about
 * anyone in them; neither reads a body or forks an entity manager. Storage is not part of it, nor Redis: when the bucket is away every instance
 * meets the same outage, and taking them all out would stop registrations, the kiosk's context,
 * galleries and staff, which need only the database, along with the uploads and downloads that need
 * storage (those answer 503 on their own). Its state is checked here all the same (cached, at the
 * probes' pace), for `photobooth_dependency_up` and its alert.
 */
export const operationsRouter = {
  live: api.operations.live.handler(({ context }) => {
    context.resHeaders?.set('Cache-Control', 'no-store')
    return { status: 'ok' as const }
  }),
  ready: api.operations.ready.handler(async ({ context }) => {
    context.resHeaders?.set('Cache-Control', 'no-store')
    const notReady = await whyNotReady(context)
    context.metrics.ready.set(notReady ? 0 : 1)
    if (notReady) throw new AppError('not_ready', notReady)
    return { status: 'ready' as const }
  }),
}

/** Why this instance should not be sent requests, or undefined when it should. */
async function whyNotReady({ orm, logger, draining, storage, metrics, rateLimitCounts }: AppContext): Promise<string | undefined> {
  if (rateLimitCounts) metrics.dependencyUp.set({ dependency: 'redis' }, rateLimitCounts.isUp() ? 1 : 0)
  // A failed check is counted by the storage adapter, as every failed storage call is.
  if (storage) {
    let storageUp = storageStates.get(storage)
    if (!storageUp) storageStates.set(storage, (storageUp = storageHealth(storage, logger)))
    metrics.dependencyUp.set({ dependency: 'storage' }, storageUp() ? 1 : 0)
  }
  if (draining()) return 'draining'
  try {
    await withTimeout(run(orm.em.fork(), PING), DATABASE_CHECK_MS)
    if (!migrated.has(orm) && (await withTimeout(pendingMigrations(orm), DATABASE_CHECK_MS)).length === 0) migrated.add(orm)
    metrics.dependencyUp.set({ dependency: 'database' }, 1)
  } catch (error) {
    metrics.dependencyUp.set({ dependency: 'database' }, 0)
    metrics.dependencyErrors.inc({ dependency: 'database' })
    logger.warn('not ready: the database does not answer', { error: describeError(error) })
    return 'database unreachable'
  }
  if (!migrated.has(orm)) return 'migrations pending'
  return undefined
}

/**
 * Whether storage answers, as its last checks said: a probe starts a check when the last is older
 * than the interval and answers with what is known, never waiting on the bucket. The state changes
 * only when `STORAGE_CHECKS_TO_CHANGE` checks in a row say so.
 */
function storageHealth(storage: PhotoStorage, logger: AppContext['logger']): () => boolean {
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
