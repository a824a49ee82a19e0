import type { EntityManager } from '@mikro-orm/postgresql'
import pg from 'pg'

import type { Logger } from '../logger.js'
import { pgTimeouts, type DatabaseTimeouts } from './timeouts.js'
import { NOTIFY } from './db.queries.js'
import { run } from './query.js'

/** Announces work on `channel` to the listeners of every instance; inside a transaction, at its commit. */
export async function notify(tx: EntityManager, channel: string): Promise<void> {
  await run(tx, NOTIFY, [channel, ''])
}

export type NotificationListener = { close(): Promise<void> }

const RETRY_MS = { first: 500, max: 30_000 }

/**
 * Wakes this instance's background workers when any instance queues work for them: `handlers` by
 * notification channel (the delivery dispatcher on queued messages, the copies worker on completed
 * photos). LISTEN on a connection of its own: a pooled one cannot stay subscribed. A lost
 * connection is made again, with backoff, and every handler runs once it is back, for what was
 * queued meanwhile; the workers' intervals cover the gap in any case.
 */
export function listenForNotifications(
  database: { url: string; timeouts: DatabaseTimeouts },
  handlers: Record<string, () => void>,
  logger: Logger,
): NotificationListener {
  let client: pg.Client | undefined
  let closed = false
  let retryMs = RETRY_MS.first
  let retry: NodeJS.Timeout | undefined

  const reconnectLater = () => {
    if (closed || retry) return
    retry = setTimeout(() => {
      retry = undefined
      void connect()
    }, retryMs)
    retry.unref()
    retryMs = Math.min(retryMs * 2, RETRY_MS.max)
  }

  const connect = async () => {
    const next = new pg.Client({ connectionString: database.url, ...pgTimeouts(database.timeouts) })
    let lost = false
    const lose = (error: unknown) => {
      if (lost) return
      lost = true
      if (client === next) client = undefined
      next.end().catch(() => {})
      if (closed) return
      logger.error('notification listener lost its connection; the workers still look at their interval', error)
      reconnectLater()
    }
    next.on('notification', (message) => handlers[message.channel]?.())
    next.on('error', lose)
    next.on('end', () => lose(new Error('connection ended')))
    try {
      await next.connect()
      await next.query(
        Object.keys(handlers)
          .map((channel) => `listen ${channel}`)
          .join('; '),
      )
    } catch (error) {
      return lose(error)
    }
    if (closed) return void next.end().catch(() => {})
    client = next
    retryMs = RETRY_MS.first
    for (const handler of Object.values(handlers)) handler()
  }

  void connect()
  return {
    async close() {
      closed = true
      clearTimeout(retry)
      await client?.end().catch(() => {})
    },
  }
}
