import { randomInt } from 'node:crypto'

import type { PoolSql } from '../../db/pool-sql.js'
import type { Logger } from '../../logger.js'
import { CHANNELS } from './outbox-message.entity.js'
import { PermanentFailure, type OutgoingMessage, type Transports } from './transport.js'

export type DispatcherSettings = {
  /** How often to look for due messages when nothing wakes the dispatcher. */
  intervalMs: number
  batchSize: number
  /** Attempts before a message that keeps failing is marked failed. */
  maxAttempts: number
  /** Retry delay: exponential from the base, capped, with full jitter. */
  baseDelayMs: number
  maxDelayMs: number
  /** A claimed message that is not settled within this time (its instance died) is taken again. */
  leaseMs: number
}

export const DEFAULT_DISPATCHER_SETTINGS: DispatcherSettings = {
  intervalMs: 2_000,
  batchSize: 20,
  maxAttempts: 8,
  baseDelayMs: 5_000,
  maxDelayMs: 15 * 60_000,
  leaseMs: 2 * 60_000,
}

export type Dispatcher = {
  /** Look for due messages now (after a completion queued some). */
  wake(): void
  /** One pass: sends what is due; resolves with how many messages it settled. */
  runOnce(): Promise<number>
  /** Finishes the message in hand, hands back the rest of its batch, and stops. */
  stop(): Promise<void>
}

type Claimed = OutgoingMessage & { attempts: number }

export const NOT_CONFIGURED = 'not configured'

/**
 * Sends the outbox: safe with several instances on one database, since a batch is claimed with
 * row locks that skip locked rows and a lease that another instance honours.
 */
export function startDispatcher(deps: { db: PoolSql; transports: Transports; logger: Logger; settings: DispatcherSettings }): Dispatcher {
  const { db, transports, logger, settings } = deps
  const configured = CHANNELS.filter((channel) => transports[channel])
  const unconfigured = CHANNELS.filter((channel) => !transports[channel])
  let stopping = false
  let pass: Promise<unknown> | undefined
  let again = false

  const retryDelayMs = (attempts: number) =>
    randomInt(0, Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempts - 1)) + 1)

  async function claim(): Promise<Claimed[]> {
    if (configured.length === 0) return []
    return db.rows<Claimed>(
      `with due as (
         select id from outbox_message
          where status = 'pending' and next_attempt_at <= now() and channel = any($1::text[])
          order by next_attempt_at
          limit $2
          for update skip locked
       )
       update outbox_message m
          set attempts = m.attempts + 1, next_attempt_at = now() + $3 * interval '1 millisecond'
         from due, session_guest g, session s, event_set st, event e
        where m.id = due.id and g.id = m.session_guest_id and s.id = m.session_id and st.id = s.set_id and e.id = st.event_id
       returning m.id, m.channel, m.recipient, m.link, m.attempts, e.name as "eventName", g.first_name as "guestName"`,
      [configured, settings.batchSize, settings.leaseMs],
    )
  }

  async function settle(message: Claimed): Promise<void> {
    const transport = transports[message.channel]!
    try {
      const { providerMessageId } = await transport.send(message)
      await db.rows(
        `update outbox_message set status = 'sent', provider_message_id = $2, sent_at = now(), last_error = null where id = $1`,
        [message.id, providerMessageId],
      )
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      const permanent = error instanceof PermanentFailure
      if (permanent || message.attempts >= settings.maxAttempts) {
        await db.rows(`update outbox_message set status = 'failed', last_error = $2 where id = $1`, [message.id, reason])
        // The recipient is a guest's address: the log names the message, the outbox row holds the rest.
        logger.error(`${message.channel} message ${message.id} failed for good`, { name: (error as Error)?.name, permanent })
      } else {
        await db.rows(
          `update outbox_message set last_error = $2, next_attempt_at = now() + $3 * interval '1 millisecond' where id = $1`,
          [message.id, reason, retryDelayMs(message.attempts)],
        )
      }
    }
  }

  async function runOnce(): Promise<number> {
    if (unconfigured.length > 0) {
      await db.rows(
        `update outbox_message set last_error = $2 where status = 'pending' and channel = any($1::text[]) and last_error is distinct from $2`,
        [unconfigured, NOT_CONFIGURED],
      )
    }
    const batch = await claim()
    let settled = 0
    for (const message of batch) {
      if (stopping) {
        // Not started: hand it back at once rather than leave it to the lease.
        await db.rows(`update outbox_message set attempts = attempts - 1, next_attempt_at = now() where id = $1`, [message.id])
        continue
      }
      await settle(message)
      settled++
    }
    return batch.length === settings.batchSize && !stopping ? settled + (await runOnce()) : settled
  }

  function wake(): void {
    if (stopping) return
    if (pass) {
      again = true
      return
    }
    pass = runOnce()
      .catch((error: unknown) => logger.error('delivery pass failed', error))
      .finally(() => {
        pass = undefined
        if (again) {
          again = false
          wake()
        }
      })
  }

  const timer = setInterval(wake, settings.intervalMs)
  timer.unref()
  wake()

  return {
    wake,
    runOnce,
    async stop() {
      stopping = true
      clearInterval(timer)
      await pass
    },
  }
}
