import { randomInt } from 'node:crypto'

import type { Services } from '../../context.js'
import { describeError } from '../../logger.js'
import type { Metrics } from '../../metrics.js'
import { outageOf } from '../../outages.js'
import type { PhotoStorage } from '../storage/index.js'
import { makeCopies, settleCopies, type CopiesDeps } from './photo-copies.service.js'
import { COPIES_QUERIES, type ClaimedPhoto } from './photo-copies.queries.js'
import { run } from '../../db/query.js'

export type CopiesWorkerSettings = {
  /** Photos in hand at once in this instance (each holds its upload and one decoded frame). */
  concurrency: number
  /** How often to look for queued photos when nothing wakes the worker. */
  intervalMs: number
  /** A claimed photo not settled within this (its instance died) is taken again. */
  leaseMs: number
  /** Attempts that fail (for another reason than an outage of storage or the database) before a photo is marked failed. */
  maxAttempts: number
  /** First retry delay, doubled per attempt, with full jitter. */
  baseDelayMs: number
}

/** While storage or the database is away, a photo in hand is looked at again after 5 to 10 s. */
const OUTAGE_RETRY_MS = 5_000

export type CopiesWorker = {
  /** Look for queued photos now (a completion queued some). */
  wake: () => void
  /** Finishes the photos in hand and stops; what was claimed and not finished is taken again after its lease. */
  stop(): Promise<void>
  /** Resolves once no photo is in hand and the last look found nothing due (for the admin command and tests). */
  idle(): Promise<void>
}

/**
 * Makes the copies of completed sessions' photos, off the request path: a durable job on each
 * photo's row, claimed with `FOR UPDATE SKIP LOCKED` and a lease, so several instances share the
 * work and a photo whose instance died is taken again once its lease runs out. Each photo is done
 * at least once; doing one twice stores nothing new (copies are stored only if absent) and records
 * nothing twice (only a queued row is settled).
 */
export function startCopiesWorker(
  deps: Pick<Services, 'orm' | 'logger' | 'wakeDelivery'> &
    CopiesDeps & { storage: PhotoStorage; settings: CopiesWorkerSettings; metrics?: Pick<Metrics, 'copiesMade'> },
): CopiesWorker {
  const { orm, logger, settings } = deps
  const em = () => orm.em.fork()
  const inHand = new Set<Promise<void>>()
  let stopped = false
  let looking: Promise<void> | undefined
  let again = false
  let idleWaiters: (() => void)[] = []
  let lastLookEmpty = false

  const retryDelayMs = (attempts: number) => randomInt(0, settings.baseDelayMs * 2 ** Math.min(attempts - 1, 10) + 1)

  async function work(photo: ClaimedPhoto): Promise<void> {
    const timer = deps.metrics?.copiesMade.startTimer()
    try {
      const made = await makeCopies(deps, photo)
      const { released } = await settleCopies(em(), deps.storage, photo, made)
      timer?.({ outcome: made.status })
      if (released) deps.wakeDelivery()
      if (made.status === 'failed') logger.warn('photo copies failed', { photoId: photo.id, reason: made.error })
    } catch (error) {
      timer?.({ outcome: 'retried' })
      const message = error instanceof Error ? error.message.slice(0, 300) : 'unknown error'
      // Storage or the database away: not the photo's fault, so no attempt is spent (an outage of an
      // hour must not fail the photos in hand); it is tried again every few seconds until it is back.
      if (outageOf(error)) {
        logger.warn('photo copies wait for storage or the database', { photoId: photo.id, error: describeError(error) })
        await run(em(), COPIES_QUERIES.retryLater, [1, OUTAGE_RETRY_MS + randomInt(0, OUTAGE_RETRY_MS + 1), message, photo.id]).catch(
          (settleError: unknown) => logger.error('photo copies could not be settled', settleError),
        )
        return
      }
      // Any other failure: tried again after a delay, and given up on (failed, for staff) past the limit.
      logger.error('photo copies attempt failed', error)
      try {
        if (photo.image_attempts >= settings.maxAttempts) {
          await settleCopies(em(), deps.storage, photo, {
            status: 'failed',
            error: `Gave up after ${photo.image_attempts} attempts: ${message}`,
            full: null,
            width: photo.width,
            height: photo.height,
            copies: null,
            preview: false,
          }).then(({ released }) => released && deps.wakeDelivery())
        } else {
          await run(em(), COPIES_QUERIES.retryLater, [0, retryDelayMs(photo.image_attempts), message, photo.id])
        }
      } catch (settleError) {
        // Its lease runs out and it is taken again.
        logger.error('photo copies could not be settled', settleError)
      }
    }
  }

  async function look(): Promise<void> {
    do {
      again = false
      const free = settings.concurrency - inHand.size
      if (stopped || free <= 0) return
      let claimed: ClaimedPhoto[]
      try {
        claimed = await run(em(), COPIES_QUERIES.claim, [free, settings.leaseMs])
      } catch (error) {
        logger.error('photo copies claim failed', error)
        return
      }
      lastLookEmpty = claimed.length === 0
      for (const photo of claimed) {
        const task = work(photo).finally(() => {
          inHand.delete(task)
          wake()
        })
        inHand.add(task)
      }
      if (claimed.length === free) again = true
    } while (again)
  }

  function wake(): void {
    if (stopped) return
    if (looking) {
      again = true
      return
    }
    looking = look().finally(() => {
      looking = undefined
      if (inHand.size === 0 && lastLookEmpty) {
        const waiters = idleWaiters
        idleWaiters = []
        for (const resolve of waiters) resolve()
      }
    })
  }

  const interval = setInterval(wake, settings.intervalMs)
  interval.unref()
  wake()

  return {
    wake,
    async stop() {
      stopped = true
      clearInterval(interval)
      await looking
      await Promise.allSettled([...inHand])
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve)
        wake()
      })
    },
  }
}
