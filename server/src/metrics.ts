import { MESSAGE_STATES } from '@photobooth/sdk/schemas'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { BACKLOG_QUERY, type BacklogCount } from './metrics.queries.js'

import type { Orm } from './db/orm.js'
import { withTimeout } from './timeouts.js'
import { CHANNELS } from './db/entities/outbox-message.entity.js'
import { run } from './db/query.js'

/**
 * Prometheus metrics of one instance (prom-client), on a registry of its own: served on
 * `GET /metrics` when `METRICS_TOKEN` is set (http/metrics-route.ts).
 */
export type Metrics = ReturnType<typeof createMetrics>

/** The pool MikroORM's knex keeps (tarn): what `photobooth_db_pool_connections` reports. */
type Pool = { numUsed(): number; numFree(): number; numPendingAcquires(): number }

/** What the service depends on at run time, as its metrics and its readiness name them. */
export const DEPENDENCIES = ['database', 'storage', 'redis'] as const
export type Dependency = (typeof DEPENDENCIES)[number]

/**
 * How long a scrape waits for the outbox's counts. A database that does not answer must not hold
 * the scrape past Prometheus' timeout (10 s by default), which would drop every figure, the
 * process's and the requests' included, just when they are wanted.
 */
const OUTBOX_READ_TIMEOUT_MS = 1_000

/** The dispatcher's failure kinds (modules/messages/dispatcher.ts). */
const FAILURE_KINDS = ['transient', 'permanent'] as const

export function createMetrics({ orm }: { orm: Orm }) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requestDuration = new Histogram({
    name: 'photobooth_http_request_duration_seconds',
    help: 'Time to answer a request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const rateLimited = new Counter({
    name: 'photobooth_rate_limit_refusals_total',
    help: 'Requests refused with 429, by limit',
    labelNames: ['limit'] as const,
    registers: [registry],
  })
  const zipBytes = new Counter({ name: 'photobooth_zip_bytes_total', help: 'Bytes of zips streamed to guests', registers: [registry] })
  const deliveryLatency = new Histogram({
    name: 'photobooth_delivery_latency_seconds',
    help: "From a gallery link's queueing (the session's completion) to the provider's acceptance, by channel",
    labelNames: ['channel'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600],
    registers: [registry],
  })
  const dispatchFailures = new Counter({
    name: 'photobooth_delivery_failures_total',
    help: 'Failed sends, by channel and kind (transient: retried; permanent: given up)',
    labelNames: ['channel', 'kind'] as const,
    registers: [registry],
  })
  // Series with known labels start at zero, so that an alert sees them on a fresh instance (the rate
  // limits' each as it is created: rate-limits.ts).
  for (const channel of CHANNELS) for (const kind of FAILURE_KINDS) dispatchFailures.inc({ channel, kind }, 0)
  const outboxMessages = new Gauge({
    name: 'photobooth_outbox_messages',
    help: `Gallery-link messages in the outbox, by channel and status (read from the database at scrape; left out when it does not answer within ${OUTBOX_READ_TIMEOUT_MS} ms)`,
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
  })
  const photos = new Gauge({
    name: 'photobooth_photos',
    help: 'Photos of the whole deployment by where their copies stand (copies="queued": still to be made; read with photobooth_outbox_messages, and left out with it)',
    labelNames: ['copies'] as const,
    registers: [registry],
  })
  const outboxReadFailures = new Counter({
    name: 'photobooth_outbox_read_failures_total',
    help: `Scrapes without photobooth_outbox_messages and photobooth_photos: the database failed or did not answer within ${OUTBOX_READ_TIMEOUT_MS} ms`,
    registers: [registry],
  })
  const copiesMade = new Histogram({
    name: 'photobooth_photo_copies_seconds',
    help: "Time to make and store one photo's copies in this instance, by outcome (ready; failed: the upload could not be decoded or is gone; retried: storage or the database failed)",
    labelNames: ['outcome'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  })
  for (const outcome of ['ready', 'failed', 'retried']) copiesMade.zero({ outcome })
  const oldestPending = new Gauge({
    name: 'photobooth_outbox_oldest_pending_seconds',
    help: 'Age of the oldest gallery-link message still to be sent, by channel (0: none waiting; read and left out with photobooth_outbox_messages)',
    labelNames: ['channel'] as const,
    registers: [registry],
  })
  const deliveryRecordFailures = new Counter({
    name: 'photobooth_delivery_record_failures_total',
    help: "Sent messages whose result could not be written, by outcome (retried: written again; abandoned: not written before the message's lease ended, so it may be sent twice)",
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  for (const outcome of ['retried', 'abandoned']) deliveryRecordFailures.inc({ outcome }, 0)
  const auditWriteFailures = new Counter({
    name: 'photobooth_audit_write_failures_total',
    help: 'Staff actions whose audit event could not be written (the database failed after the answer): missing from the trail',
    registers: [registry],
  })
  auditWriteFailures.inc(0)
  const dependencyErrors = new Counter({
    name: 'photobooth_dependency_errors_total',
    help: 'Calls to a dependency that failed or timed out, by dependency (database: requests and readiness checks; storage: every S3 call; redis: every rate-limit count and connection error)',
    labelNames: ['dependency'] as const,
    registers: [registry],
  })
  for (const dependency of DEPENDENCIES) dependencyErrors.inc({ dependency }, 0)
  const rateLimitUnchecked = new Counter({
    name: 'photobooth_rate_limit_unchecked_total',
    help: 'Requests let through without a rate-limit count because Redis did not answer in time (the limits fail open), by limit',
    labelNames: ['limit'] as const,
    registers: [registry],
  })
  const dependencyUp = new Gauge({
    name: 'photobooth_dependency_up',
    help: "Whether a dependency answered this instance's last check (1) or not (0), by dependency: database and storage as /readyz sees them, redis as its client is connected (absent when not configured)",
    labelNames: ['dependency'] as const,
    registers: [registry],
  })
  const ready = new Gauge({
    name: 'photobooth_ready',
    help: 'Whether /readyz answered 200 at its last probe (1) or 503 (0)',
    registers: [registry],
  })
  let reading: Promise<BacklogCount[]> | undefined
  async function readOutbox() {
    // One read at a time: while the database stalls, each scrape waits on the read already sent
    // rather than holding another connection of the pool until it answers.
    reading ??= run(orm.em.fork(), BACKLOG_QUERY).finally(() => (reading = undefined))
    const rows = await withTimeout(reading, OUTBOX_READ_TIMEOUT_MS).catch(() => undefined)
    // No figure rather than an old one: an alert on the outbox sees the series go, and the counter says why.
    outboxMessages.reset()
    photos.reset()
    oldestPending.reset()
    if (!rows) {
      outboxReadFailures.inc()
      return
    }
    for (const channel of CHANNELS) {
      oldestPending.set({ channel }, 0)
      for (const status of MESSAGE_STATES) outboxMessages.set({ channel, status }, 0)
    }
    for (const row of rows) {
      if (row.channel === null) photos.set({ copies: row.status }, row.count)
      else outboxMessages.set({ channel: row.channel, status: row.status }, row.count)
      if (row.channel !== null && row.status === 'pending')
        oldestPending.set({ channel: row.channel }, Math.max(0, Math.round(row.oldest ?? 0)))
    }
  }
  new Gauge({
    name: 'photobooth_db_pool_connections',
    help: 'Database connections of this instance, by state (used, free; pending: requests waiting for one)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = (orm.em.getConnection().getKnex().client as { pool?: Pool }).pool
      if (!pool) return
      this.set({ state: 'used' }, pool.numUsed())
      this.set({ state: 'free' }, pool.numFree())
      this.set({ state: 'pending' }, pool.numPendingAcquires())
    },
  })
  /**
   * The text format, the outbox read first rather than in a gauge's `collect`: the registry reads
   * its metrics all at once, so a failure counted there would only show at the next scrape.
   */
  async function scrape(): Promise<string> {
    await readOutbox()
    return registry.metrics()
  }
  return {
    registry,
    scrape,
    requestDuration,
    rateLimited,
    rateLimitUnchecked,
    zipBytes,
    deliveryLatency,
    dispatchFailures,
    deliveryRecordFailures,
    auditWriteFailures,
    copiesMade,
    dependencyErrors,
    dependencyUp,
    ready,
  }
}
