import { randomInt } from 'node:crypto'

import { DEFAULT_DISPATCHER_SETTINGS } from '../../config.js'
import type { Services } from '../../context.js'
import { describeError, redact } from '../../logger.js'
import type { Metrics } from '../../metrics.js'
import { brandingOfRow } from '../events/index.js'
import { CHANNELS, OutboxMessage, type Channel } from '../../db/entities/outbox-message.entity.js'
import { OUTBOX_QUERIES, type Settlement } from './outbox.queries.js'
import { createPacer, SYSTEM_CLOCK, type Clock } from './pacer.js'
import { PermanentFailure, Throttled, type OutgoingMessage, type Outcome, type Transports } from './transport.js'
import { run } from '../../db/query.js'

export type DispatcherSettings = {
  /** Who the messages say they are from (`SMS_SENDER_NAME`, a brand); null: each event's name. */
  senderName?: string | null
  /** How often to look for due messages when nothing wakes the dispatcher. */
  intervalMs: number
  /** Most messages one claim takes, per channel. */
  batchSize: number
  /**
   * How long after its queueing a message that keeps failing (a provider's outage) is still tried:
   * counted in time, not attempts, so that an outage of minutes or hours does not spend it.
   */
  retryForMs: number
  /** Retry delay: exponential from the base, capped, half of it jittered. */
  baseDelayMs: number
  maxDelayMs: number
  /**
   * A claimed message that is not settled within this time (its instance died) is taken again. Longer
   * than a send may take (a provider's timeout) with the time to record it; short enough that a dead
   * instance's messages move on within a minute.
   */
  leaseMs: number
  // The pace of each channel; absent, the defaults.
  /** Provider requests in flight at once, per channel, in this instance (a Postmark batch is one). */
  concurrency?: number
  /** Messages per second, per channel, in this instance; absent (or 0): no limit. */
  perSecond?: Partial<Record<Channel, number | undefined>>
  /** Most messages in one request to a provider that takes batches (Postmark: up to 500); 1: none. */
  providerBatch?: number
  /** The channel's pause after a 429 without Retry-After; doubled while the 429s go on, up to `maxDelayMs`. */
  throttleMs?: number
}

export type Dispatcher = {
  /** Look for due messages now (after a completion queued some). */
  wake: () => void
  /** Finishes the requests in flight, hands back the messages claimed but not yet sent, and stops. */
  stop(): Promise<void>
}

/**
 * `queuedAt`: when the message was queued (the completion), for the latency metric; `retrySince`:
 * since when it has been tried (its queueing, or staff's last retry), for its retry time. Epoch ms.
 */
type Claimed = OutgoingMessage & { attempts: number; queuedAt: number; retrySince: number }

export const NOT_CONFIGURED = 'not configured'

/** The first wait before a failed record is written again, doubling up to the last. */
const RECORD_RETRY_MS = { first: 250, max: 4_000 }
/** A record still failing this long before its lease ends is given up: the message may go twice. */
const RECORD_MARGIN_MS = 5_000

/**
 * Sends the outbox: safe with several instances on one database, since messages are claimed with
 * row locks that skip locked rows and a lease that another instance honours.
 *
 * Each configured channel is a lane of its own: it claims due messages ahead of its free request
 * slots (`concurrency`), sends them as they may go (`perSecond`, and a pause after a provider's
 * 429), a Postmark batch when more emails are due than there are free slots, and settles each
 * message by its own result.
 */
export function startDispatcher(
  deps: Pick<Services, 'orm' | 'logger'> & {
    transports: Transports
    settings: DispatcherSettings
    /** Where this service answers: the email's logo is served from here. */
    publicUrl?: string
    clock?: Clock
    metrics?: Pick<Metrics, 'deliveryLatency' | 'dispatchFailures' | 'deliveryRecordFailures'>
  },
): Dispatcher {
  const { orm, transports, logger, metrics } = deps
  const settings = { ...DEFAULT_DISPATCHER_SETTINGS, ...deps.settings }
  const clock = deps.clock ?? SYSTEM_CLOCK
  // The dispatcher's own entity manager: a job, not a request. Nothing it reads is kept.
  const em = () => orm.em.fork()
  const configured = CHANNELS.filter((channel) => transports[channel])
  const unconfigured = CHANNELS.filter((channel) => !transports[channel])
  const stopped = new AbortController()
  let stopping = false
  let marking: Promise<unknown> | undefined

  /** Exponential, capped; half of it random, so that the messages of one outage come back spread out. */
  const retryDelayMs = (attempts: number) => {
    const half = Math.floor(Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempts - 1)) / 2)
    return half + randomInt(0, half + 1)
  }

  /** Messages on a channel without a transport wait, and say why. */
  function markUnconfigured(): void {
    if (unconfigured.length === 0 || marking) return
    marking = em()
      .nativeUpdate(
        OutboxMessage,
        { status: 'pending', channel: { $in: unconfigured }, $or: [{ lastError: null }, { lastError: { $ne: NOT_CONFIGURED } }] },
        { lastError: NOT_CONFIGURED },
      )
      .catch((error: unknown) => logger.error('delivery pass failed', error))
      .finally(() => (marking = undefined))
  }

  function startLane(channel: Channel) {
    const transport = transports[channel]!
    const rate = settings.perSecond?.[channel] || undefined
    const pacer = createPacer(rate, clock)
    const concurrency = Math.max(1, settings.concurrency)
    // Messages per request: a batch where the provider takes them, never more than a second's worth at a set rate.
    const unit = transport.sendBatch
      ? Math.max(1, Math.min(settings.providerBatch, transport.maxBatch ?? 1, rate ? Math.floor(rate) : Infinity))
      : 1
    // Claimed messages are what the free slots send now, no more: a message claimed ahead would, on
    // this instance's death, wait out its lease; and at a set rate, no more than half a lease's worth,
    // so that none waits out its lease here.
    let window = Math.min(settings.batchSize, concurrency * unit)
    if (rate) window = Math.min(window, Math.floor((rate * settings.leaseMs) / 2000))
    window = Math.max(1, window)
    /** Room for claims: the free slots' messages, less what already waits for them. */
    const room = () => Math.min(window, (concurrency - inFlight) * unit) - ready.length

    const ready: Claimed[] = []
    /** When each waiting message was claimed (the clock's ms): none may wait out its lease here. */
    const claimedAt = new WeakMap<Claimed, number>()
    const sending = new Set<Promise<void>>()
    let inFlight = 0
    /** A wake came (or the last claim came full): there may be due messages to claim. */
    let wanted = true
    let nudged = false
    let waiter: (() => void) | undefined
    /** Consecutive pauses for 429s; back to 0 at the first message sent. */
    let throttleLevel = 0

    function nudge(): void {
      if (!waiter) return void (nudged = true)
      const resolve = waiter
      waiter = undefined
      resolve()
    }
    /** Until something changes: a wake, a request done, stop. No timer, no polling. */
    function changed(): Promise<void> {
      if (nudged || stopping) {
        nudged = false
        return Promise.resolve()
      }
      return new Promise((resolve) => (waiter = resolve))
    }

    /** A 429: the channel pauses (Retry-After, or a backoff that grows while 429s go on); answers the pause left. */
    function throttled(error: Throttled): number {
      const now = clock.now()
      // Requests already in flight when the pause began share it rather than lengthen it.
      if (now >= pacer.pausedUntil) {
        throttleLevel++
        logger.warn(`${channel} provider is over its rate: pausing the channel`, { retryAfterMs: error.retryAfterMs, level: throttleLevel })
      }
      const backoff = Math.min(settings.maxDelayMs, settings.throttleMs * 2 ** (throttleLevel - 1))
      pacer.pause(Math.min(settings.maxDelayMs, error.retryAfterMs ?? backoff))
      const pauseMs = Math.max(0, pacer.pausedUntil - now)
      // What waits for a slot would wait out the pause, maybe past its lease, and then go twice (from
      // here and from whoever took it meanwhile): it goes back, due when the pause ends.
      void handBack(ready.splice(0), pauseMs)
      return pauseMs
    }

    /** Given up: refused for good, or still failing once its retry time is over (a throttled message never is). */
    const permanentlyFailed = (message: Claimed, error: unknown) =>
      !(error instanceof Throttled) && (error instanceof PermanentFailure || Date.now() - message.retrySince >= settings.retryForMs)

    function settlement(message: Claimed, outcome: Outcome): Settlement {
      const base = { id: message.id, refund: 0 as const, provider_message_id: null, keep_error: false, delay_ms: null, suppress: null }
      if ('sent' in outcome) {
        throttleLevel = 0
        metrics?.deliveryLatency.observe({ channel }, Math.max(0, Date.now() - message.queuedAt) / 1000)
        return { ...base, status: 'sent', provider_message_id: outcome.sent.providerMessageId, last_error: null }
      }
      const { error } = outcome
      // Staff read it on the guest's message: a provider's own words may quote the address or number.
      const reason = redact(error instanceof Error ? error.message : String(error))
      const failed = permanentlyFailed(message, error)
      metrics?.dispatchFailures.inc({ channel, kind: failed ? 'permanent' : 'transient' })
      if (error instanceof Throttled) {
        // Not the message's fault: the attempt is given back, and it is due again after the pause, spread out.
        const pauseMs = throttled(error)
        return { ...base, status: 'pending', refund: 1, last_error: reason, delay_ms: pauseMs + randomInt(0, pauseMs + 1) }
      }
      const permanent = error instanceof PermanentFailure
      if (failed) {
        // The recipient is a guest's address: the log names the message, the outbox row holds the rest.
        logger.error(`${message.channel} message ${message.id} failed for good`, { name: (error as Error)?.name, permanent })
        return { ...base, status: 'failed', last_error: reason, suppress: permanent ? (error.suppress ?? null) : null }
      }
      return { ...base, status: 'pending', last_error: reason, delay_ms: retryDelayMs(message.attempts) }
    }

    /** One request: a message, or a batch; then every message of it settled, in one statement. */
    async function send(job: Claimed[]): Promise<void> {
      let outcomes: Outcome[]
      try {
        outcomes = job.length === 1 ? [{ sent: await transport.send(job[0]!) }] : await transport.sendBatch!(job)
      } catch (error) {
        outcomes = job.map(() => ({ error }))
      }
      const rows = job.map((message, index) =>
        settlement(message, outcomes[index] ?? { error: new Error('the provider gave no result for this message') }),
      )
      await record(rows, Math.min(...job.map((message) => claimedAt.get(message) ?? clock.now())) + settings.leaseMs)
    }

    /**
     * The sends' results, written until the write lands: a message whose record is lost is sent again
     * once its lease runs out. Tried again with backoff (a database cut, a failover) until shortly
     * before the lease ends; only then given up (at least once, as after a crash).
     */
    async function record(rows: Settlement[], leaseEndsAt: number): Promise<void> {
      const giveUpAt = leaseEndsAt - Math.min(RECORD_MARGIN_MS, settings.leaseMs / 4)
      for (let waitMs = RECORD_RETRY_MS.first; ; waitMs = Math.min(waitMs * 2, RECORD_RETRY_MS.max)) {
        try {
          await run(em(), OUTBOX_QUERIES.settle, [JSON.stringify(rows)])
          return
        } catch (error) {
          if (clock.now() + waitMs >= giveUpAt) {
            metrics?.deliveryRecordFailures.inc({ outcome: 'abandoned' }, rows.length)
            logger.error(`${channel} results could not be recorded before their lease ends: ${rows.length} messages may go twice`, error)
            return
          }
          metrics?.deliveryRecordFailures.inc({ outcome: 'retried' }, rows.length)
          logger.warn(`${channel} results could not be recorded: trying again`, {
            messages: rows.length,
            inMs: waitMs,
            error: describeError(error),
          })
          await new Promise((resolve) => setTimeout(resolve, waitMs))
        }
      }
    }

    /** Claimed but not started: back at once, its attempt given back, rather than left to the lease. */
    async function handBack(messages: Claimed[], delayMs = 0): Promise<void> {
      if (messages.length === 0) return
      const rows: Settlement[] = messages.map((message) => ({
        id: message.id,
        status: 'pending',
        refund: 1,
        provider_message_id: null,
        last_error: null,
        keep_error: true,
        delay_ms: delayMs,
        suppress: null,
      }))
      await run(em(), OUTBOX_QUERIES.settle, [JSON.stringify(rows)]).catch((error: unknown) =>
        logger.error(`${channel} messages could not be handed back; their lease runs out`, error),
      )
    }

    async function loop(): Promise<void> {
      while (!stopping) {
        // Claimed once half the window is free (or nothing waits): one claim per request done would cost a
        // round trip each.
        if (wanted && room() > 0 && (ready.length === 0 || room() >= window / 2)) {
          wanted = false
          const want = room()
          try {
            const rows = (await run(em(), OUTBOX_QUERIES.claim, [channel, want, settings.leaseMs, settings.senderName])).map(
              ({ eventId, branding, logo_hash, logo_width, logo_height, ...row }): Claimed => {
                const dress = deps.publicUrl
                  ? brandingOfRow(eventId, { branding, logo_hash, logo_width, logo_height }, deps.publicUrl)
                  : undefined
                return { ...row, ...(dress && { branding: dress }) }
              },
            )
            const at = clock.now()
            for (const row of rows) claimedAt.set(row, at)
            ready.push(...rows)
            // A full claim: more may be due.
            if (rows.length === want) wanted = true
          } catch (error) {
            logger.error('delivery pass failed', error)
            await changed()
          }
          continue
        }
        if (ready.length === 0 || inFlight >= concurrency) {
          await changed()
          continue
        }
        // A batch only when more are due than there are free slots: otherwise one request each goes as fast.
        const size = Math.min(unit, Math.ceil(ready.length / (concurrency - inFlight)))
        const job = ready.splice(0, size)
        if (!(await pacer.take(job.length, stopped.signal)) || stopping) {
          ready.unshift(...job)
          break
        }
        // Held through a pause that began while it waited its turn: half its lease is gone, so it
        // goes back rather than risk going after the lease (and so twice).
        if (job.some((message) => clock.now() - (claimedAt.get(message) ?? 0) > settings.leaseMs / 2)) {
          await handBack(job)
          wanted = true
          continue
        }
        inFlight++
        const request: Promise<void> = send(job).finally(() => {
          inFlight--
          sending.delete(request)
          nudge()
        })
        sending.add(request)
      }
      await handBack(ready.splice(0))
      await Promise.all(sending)
    }

    const done = loop().catch((error: unknown) => logger.error(`${channel} delivery stopped on an error`, error))
    return {
      wake() {
        wanted = true
        nudge()
      },
      nudge,
      done,
    }
  }

  const lanes = configured.map(startLane)

  function wake(): void {
    if (stopping) return
    markUnconfigured()
    for (const lane of lanes) lane.wake()
  }

  const timer = setInterval(wake, settings.intervalMs)
  timer.unref()
  wake()

  return {
    wake,
    async stop() {
      stopping = true
      clearInterval(timer)
      stopped.abort()
      for (const lane of lanes) lane.nudge()
      await Promise.all([...lanes.map((lane) => lane.done), marking])
    },
  }
}
