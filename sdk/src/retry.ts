import { ApiError, NetworkError, TimeoutError } from './errors.js'

/**
 * When and how often a call is tried again. Only GETs and calls carrying an `Idempotency-Key` are
 * retried (the SDK gives every non-GET kiosk, booth and staff call one, reused across its retries),
 * on a network error, a timeout, a 5xx (a 503's `Retry-After` honoured, up to `maxDelayMs`), or the
 * server's 409 for the same key still in flight.
 */
export type RetryOptions = {
  /** Tries after the first one. Default 3; 0 turns retries off. */
  retries?: number
  /** The first pause in ms, doubled at each try, with full jitter. Default 300. */
  minDelayMs?: number
  /** The longest pause in ms. Default 5000. */
  maxDelayMs?: number
  /**
   * A 429 (over the rate limit; the server sends no Retry-After) is given back to the app unless
   * this is set: then the call waits this many ms and tries again (within `retries`). The server
   * counts per minute, so 60000 waits a window out.
   */
  rateLimitWaitMs?: number
  /** For tests: a random number in [0, 1) for the jitter. */
  random?: () => number
}

export type ResolvedRetry = Required<Omit<RetryOptions, 'rateLimitWaitMs'>> & { rateLimitWaitMs: number | undefined }

export function resolveRetry(options: RetryOptions | false | undefined, base?: ResolvedRetry): ResolvedRetry {
  const given = options === false ? { retries: 0 } : (options ?? {})
  return {
    retries: given.retries ?? base?.retries ?? 3,
    minDelayMs: given.minDelayMs ?? base?.minDelayMs ?? 300,
    maxDelayMs: given.maxDelayMs ?? base?.maxDelayMs ?? 5000,
    rateLimitWaitMs: given.rateLimitWaitMs ?? base?.rateLimitWaitMs,
    random: given.random ?? base?.random ?? Math.random,
  }
}

/** Exponential backoff with full jitter: a random pause up to min(max, min × 2^attempt). */
export function backoffDelay(attempt: number, retry: ResolvedRetry): number {
  return Math.floor(retry.random() * Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** attempt))
}

/**
 * The server's 409 for a request whose `Idempotency-Key` is still being processed: worth waiting
 * for, unlike a domain 409 (`The session is no longer active`), which is final. The server's text
 * names the header; a replayed answer (`Idempotent-Replayed: true`) is never in flight.
 */
export function isInFlightConflict(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 409 &&
    error.headers.get('idempotent-replayed') !== 'true' &&
    /idempotency/i.test(error.message)
  )
}

/** Whether a failed try is worth another, given that the call may be repeated at all. */
export function pauseBeforeRetry(error: unknown, attempt: number, repeatable: boolean, retry: ResolvedRetry): number | undefined {
  if (attempt >= retry.retries) return undefined
  // A 429 was refused before anything ran: repeating it is safe for any call.
  if (error instanceof ApiError && error.status === 429) return retry.rateLimitWaitMs
  if (!repeatable) return undefined
  const transient =
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    (error instanceof ApiError && (error.status >= 500 || isInFlightConflict(error)))
  if (!transient) return undefined
  // A 503 with Retry-After (the database or storage away): its pause, within the longest allowed.
  const retryAfter = error instanceof ApiError && error.status === 503 ? Number(error.headers.get('retry-after')) : NaN
  const backoff = backoffDelay(attempt, retry)
  return retryAfter > 0 ? Math.max(backoff, Math.min(retry.maxDelayMs, retryAfter * 1000)) : backoff
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason as Error)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
