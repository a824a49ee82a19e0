import { setTimeout as delay } from 'node:timers/promises'

import pLimit from 'p-limit'

import type { Orm } from '../../db/orm.js'
import type { Logger } from '../../logger.js'
import type { PhotoStorage } from '../storage/index.js'
import { startCopiesWorker, type CopiesWorkerSettings } from './copies-worker.js'
import { COPIES_QUERIES } from './photo-copies.queries.js'
import type { ImageStatus } from '../../db/entities/photo.entity.js'
import { run } from '../../db/query.js'

/** Legacy photos queued per statement: a large archive is queued in short transactions. */
const QUEUE_BATCH = 1_000
const PROGRESS_EVERY_MS = 2_000

export type CopiesProgress = Record<ImageStatus, number>

/**
 * Makes the copies of photos recorded before copies existed (`pnpm admin photos make-copies`): queues
 * them for the copies worker, then works the queue here (beside any running instance's worker) until
 * no photo is queued, telling `progress` every two seconds. Idempotent and resumable: a second run
 * finds nothing legacy, and photos queued by an interrupted run are taken from where it stopped.
 */
export async function makeLegacyCopies(
  deps: { orm: Orm; storage: PhotoStorage; logger: Logger; settings: CopiesWorkerSettings },
  progress: (counts: CopiesProgress) => void,
): Promise<CopiesProgress> {
  const em = () => deps.orm.em.fork()
  while ((await run(em(), COPIES_QUERIES.queueLegacy, [QUEUE_BATCH])).length === QUEUE_BATCH);
  const worker = startCopiesWorker({ ...deps, imageLimit: pLimit(deps.settings.concurrency), wakeDelivery: () => {} })
  try {
    for (;;) {
      const counts = await readProgress(deps.orm)
      progress(counts)
      if (counts.queued === 0) return counts
      // Photos another instance holds are settled by it, or taken again here when its lease runs out.
      await Promise.race([worker.idle().then(() => delay(PROGRESS_EVERY_MS)), delay(PROGRESS_EVERY_MS)])
    }
  } finally {
    await worker.stop()
  }
}

async function readProgress(orm: Orm): Promise<CopiesProgress> {
  const counts: CopiesProgress = { legacy: 0, queued: 0, ready: 0, failed: 0 }
  for (const row of await run(orm.em.fork(), COPIES_QUERIES.progress)) counts[row.status] = row.count
  return counts
}
