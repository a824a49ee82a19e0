import pg from 'pg'

import type { Logger } from '../../logger.js'
import { OUTBOX_CHANNEL } from './outbox.service.js'

export type OutboxListener = { close(): Promise<void> }

const RETRY_MS = { first: 500, max: 30_000 }

/**
 * Wakes this instance's dispatcher when any instance queues messages (LISTEN on a connection of
 * its own: a pooled one cannot stay subscribed). A lost connection is made again, with backoff,
 * and `onNotify` runs once it is back, for what was queued meanwhile; the dispatcher's interval
 * covers the gap in any case.
 */
export function listenForOutbox(databaseUrl: string, onNotify: () => void, logger: Logger): OutboxListener {
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
    // Keepalives: a connection a NAT or a failover drops in silence would otherwise hear nothing, for ever.
    const next = new pg.Client({ connectionString: databaseUrl, keepAlive: true, connectionTimeoutMillis: 10_000 })
    let lost = false
    const lose = (error: unknown) => {
      if (lost) return
      lost = true
      if (client === next) client = undefined
      next.end().catch(() => {})
      if (closed) return
      logger.error('outbox listener lost its connection; the interval still sends', error)
      reconnectLater()
    }
    next.on('notification', () => onNotify())
    next.on('error', lose)
    next.on('end', () => lose(new Error('connection ended')))
    try {
      await next.connect()
      await next.query(`listen ${OUTBOX_CHANNEL}`)
    } catch (error) {
      return lose(error)
    }
    if (closed) return void next.end().catch(() => {})
    client = next
    retryMs = RETRY_MS.first
    onNotify()
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
