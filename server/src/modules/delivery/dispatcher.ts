import { randomInt } from 'node:crypto'

import { raw } from '@mikro-orm/postgresql'

import type { Services } from '../../context.js'
import { CHANNELS, OutboxMessage } from './outbox-message.entity.js'
import { OUTBOX_QUERIES } from './outbox.queries.js'
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
  wake: () => void
  /** Finishes the message in hand, hands back the rest of its batch, and stops. */
  stop(): Promise<void>
}

type Claimed = OutgoingMessage & { attempts: number }

export const NOT_CONFIGURED = 'not configured'

/**
 * Sends the outbox: safe with several instances on one database, since a batch is claimed with
 * row locks that skip locked rows and a lease that another instance honours.
 */
export function startDispatcher(deps: Pick<Services, 'orm' | 'logger'> & { transports: Transports; settings: DispatcherSettings }): Dispatcher {
  const { orm, transports, logger, settings } = deps
  // The dispatcher's own entity manager: a job, not a request. Nothing it reads is kept.
  const em = () => orm.em.fork()
  /** `now() + ms`, on the database's clock, which also decides what is due. */
  const inMs = (ms: number) => raw(`now() + ? * interval '1 millisecond'`, [ms]) as Date
  const configured = CHANNELS.filter((channel) => transports[channel])
  const unconfigured = CHANNELS.filter((channel) => !transports[channel])
  let stopping = false
  let pass: Promise<unknown> | undefined
  let again = false

  const retryDelayMs = (attempts: number) =>
    randomInt(0, Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempts - 1)) + 1)

  async function claim(): Promise<Claimed[]> {
    if (configured.length === 0) return []
    return em().execute<Claimed[]>(OUTBOX_QUERIES.claim, [configured, settings.batchSize, settings.leaseMs])
  }

  async function settle(message: Claimed): Promise<void> {
    const transport = transports[message.channel]!
    try {
      const { providerMessageId } = await transport.send(message)
      await em().nativeUpdate(OutboxMessage, message.id, { status: 'sent', providerMessageId, sentAt: raw('now()') as Date, lastError: null })
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      const permanent = error instanceof PermanentFailure
      if (permanent || message.attempts >= settings.maxAttempts) {
        await em().nativeUpdate(OutboxMessage, message.id, { status: 'failed', lastError: reason })
        // The recipient is a guest's address: the log names the message, the outbox row holds the rest.
        logger.error(`${message.channel} message ${message.id} failed for good`, { name: (error as Error)?.name, permanent })
      } else {
        await em().nativeUpdate(OutboxMessage, message.id, { lastError: reason, nextAttemptAt: inMs(retryDelayMs(message.attempts)) })
      }
    }
  }

  /** One pass: sends what is due, batch after batch while batches come full. */
  async function runOnce(): Promise<void> {
    if (unconfigured.length > 0) {
      await em().nativeUpdate(
        OutboxMessage,
        { status: 'pending', channel: { $in: unconfigured }, $or: [{ lastError: null }, { lastError: { $ne: NOT_CONFIGURED } }] },
        { lastError: NOT_CONFIGURED },
      )
    }
    const batch = await claim()
    for (const message of batch) {
      if (stopping) {
        // Not started: hand it back at once rather than leave it to the lease.
        await em().nativeUpdate(OutboxMessage, message.id, { attempts: raw('attempts - 1') as number, nextAttemptAt: raw('now()') as Date })
        continue
      }
      await settle(message)
    }
    if (batch.length === settings.batchSize && !stopping) await runOnce()
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
    async stop() {
      stopping = true
      clearInterval(timer)
      await pass
    },
  }
}
