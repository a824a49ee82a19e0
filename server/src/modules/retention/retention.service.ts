import type { Services } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { pruneAuditEvents } from '../audit/index.js'
import { deleteSessions, removeDeletedPhotos } from '../sessions/index.js'
import { RETENTION_QUERIES } from './retention.queries.js'
import { run } from '../../db/query.js'

/** Sessions purged per transaction: a short lock, and progress kept if the instance stops. */
const BATCH = 100

type PurgeDeps = Pick<Services, 'orm' | 'storage' | 'logger' | 'now' | 'config'> & {
  defaultDays: number
  /** Aborted when the instance stops: no further batch is started (the one in hand commits or rolls back). */
  signal?: AbortSignal
}

/**
 * Purges what has expired (RetentionSettings): each batch of due sessions in a transaction of its
 * own, locked with SKIP LOCKED so that instances purging at once never take the same session; each
 * session is deleted whole (guests, messages, photos, customers no other session needs, stored
 * answers naming it), its views and shares left counted for the event, and the event's anonymous
 * counts raised. Storage is cleaned after each commit, through the deletion queue: a stop or a
 * storage outage between the two leaves the prefixes queued for the next pass. Answers how many
 * sessions this call purged.
 */
export async function purgeExpired(deps: PurgeDeps): Promise<number> {
  // The staff audit trail has a retention of its own (AUDIT_RETENTION_DAYS); its rows are not guests'.
  await pruneAuditEvents(deps)
  let purged = 0
  while (!deps.signal?.aborted) {
    const batch = await deps.orm.em.fork().transactional(async (tx) => {
      const now = deps.now()
      const due = await run(tx, RETENTION_QUERIES.due, [now, deps.defaultDays, now, BATCH])
      if (due.length === 0) return 0
      await run(tx, RETENTION_QUERIES.detachTracking, [due.map((row) => row.id)])
      for (const [eventId, rows] of groupBy(due, (row) => row.event_id)) {
        const counts = await deleteSessions(
          tx,
          rows.map((row) => row.id),
        )
        await run(tx, RETENTION_QUERIES.countPurged, [counts.sessions, counts.guests, counts.photos, eventId])
      }
      return due.length
    })
    if (batch > 0) await removeDeletedPhotos(deps)
    purged += batch
    if (batch < BATCH) break
  }
  return purged
}

export type PurgeWorker = { stop(): Promise<void> }

/**
 * Runs the purge now and every `intervalMs`, one pass at a time; a failed pass is logged and tried at the next.
 *
 * A timer, not a scheduler library, and no lock between instances (docs/architecture.md, "Libraries
 * and hand-written code"). What it needs is: a pass at start, then one every `PURGE_INTERVAL_MS`,
 * never two at once here, and `stop()` that waits for the pass in hand. croner 11 would replace only
 * the `setInterval`: the pass at start would be its `trigger()`, which its overlap protection
 * (`protect`) does not cover; its `stop()` does not wait for a run in progress, so `running` and the
 * abort stay ours; its `interval` is whole seconds on a cron pattern. A calendar time ("at 03:00")
 * is what a scheduler is for, and the purge does not need one. Instances need no coordination: each
 * batch takes its sessions `for update skip locked` (RETENTION_QUERIES.due), so passes of two
 * instances at once share the work and count each session once (test/retention/purge.test.ts), which
 * a scheduler would not arrange (it runs in each instance) and an advisory lock would only serialise.
 */
export function startPurgeWorker(deps: Omit<PurgeDeps, 'signal'> & { intervalMs: number }): PurgeWorker {
  const stopping = new AbortController()
  let running: Promise<void> | undefined
  const pass = () => {
    running ??= purgeExpired({ ...deps, signal: stopping.signal })
      .then((purged) => {
        if (purged > 0) deps.logger.info('expired guest data purged', { sessions: purged })
      })
      .catch((error: unknown) => deps.logger.error('the purge of expired guest data failed; tried again at the next pass', error))
      .finally(() => (running = undefined))
  }
  pass()
  const timer = setInterval(pass, deps.intervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      stopping.abort()
      await running
    },
  }
}
