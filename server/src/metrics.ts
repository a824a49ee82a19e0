import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

import type { Orm } from './db/orm.js'

/**
 * Prometheus metrics of one instance (prom-client), on a registry of its own: served on
 * `GET /metrics` when `METRICS_TOKEN` is set (http/metrics-route.ts).
 */
export type Metrics = ReturnType<typeof createMetrics>

/** The pool MikroORM's knex keeps (tarn): what `photobooth_db_pool_connections` reports. */
type Pool = { numUsed(): number; numFree(): number; numPendingAcquires(): number }

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
  new Gauge({
    name: 'photobooth_outbox_messages',
    help: 'Gallery-link messages in the outbox, by channel and status (read from the database at scrape)',
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
    async collect() {
      const rows = await orm.em.fork().execute<{ channel: string; status: string; count: number }[]>(
        'select channel, status, count(*)::int as count from outbox_message group by channel, status',
      )
      this.reset()
      for (const row of rows) this.set({ channel: row.channel, status: row.status }, row.count)
    },
  })
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
  return { registry, requestDuration, rateLimited, zipBytes, deliveryLatency, dispatchFailures }
}
