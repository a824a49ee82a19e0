import { NetworkError, TimeoutError } from './errors.js'
import { pauseBeforeRetry, sleep, type ResolvedRetry } from './retry.js'

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** What every request of one client shares. */
export type Transport = {
  fetch: FetchLike
  timeoutMs: number
  /** A call's whole time, retries included (0: none). */
  deadlineMs: number
  retry: ResolvedRetry
  credentials: RequestInit['credentials']
  onResponse: ((response: Response) => void) | undefined
  /** Rewrites a signed upload URL before its PUT (`ClientOptions.uploadUrl`). */
  uploadUrl?: ((url: string) => string) | undefined
  /** The service's base URL, without a trailing slash (the offline queue probes its `/healthz`). */
  baseUrl?: string
}

export type SendOptions<T> = {
  url: string
  method: string
  headers: Headers
  /** Made anew for every try. */
  body?: () => RequestInit['body']
  signal?: AbortSignal | undefined
  timeoutMs?: number | undefined
  /** Over the transport's; 0 for none (an upload of a large file has its own long timeout per try). */
  deadlineMs?: number | undefined
  retry?: ResolvedRetry | undefined
  /** Whether the call may be sent again after a failure that may have reached the server. */
  repeatable: boolean
  /** The answer is a stream: the timeout ends with its headers, the caller's signal still aborts it. */
  streaming?: boolean
  /** Reads a successful answer, within the timeout. */
  read: (response: Response) => Promise<T>
  /** Turns a failed answer into its error; `undefined` accepts it (read as a success). */
  fail: (response: Response, attempt: number) => Promise<Error | undefined>
  onResponse?: ((response: Response) => void) | undefined
}

/**
 * One call: tries, timeouts, retries with backoff, all within the call's deadline (its whole time:
 * a guest never waits for four timeouts end to end); fetch's own failures become `NetworkError`, a
 * deadline reached `TimeoutError` (with the deadline's milliseconds).
 */
export async function send<T>(transport: Transport, options: SendOptions<T>): Promise<T> {
  const retry = options.retry ?? transport.retry
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs
  const deadlineMs = options.deadlineMs ?? transport.deadlineMs
  const endsAt = deadlineMs > 0 && Number.isFinite(deadlineMs) ? Date.now() + deadlineMs : Infinity
  for (let attempt = 0; ; attempt++) {
    const left = endsAt - Date.now()
    // The last try gets what is left of the deadline, if that is shorter than a try's own timeout.
    const tryMs = left < Infinity && (timeoutMs <= 0 || left < timeoutMs) ? Math.max(1, left) : timeoutMs
    try {
      return await sendOnce(transport, options, tryMs, attempt)
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      const pause = pauseBeforeRetry(error, attempt, options.repeatable, retry)
      if (pause === undefined) throw error
      if (Date.now() + pause >= endsAt) throw error instanceof TimeoutError ? new TimeoutError(deadlineMs) : error
      await sleep(pause, options.signal)
    }
  }
}

async function sendOnce<T>(transport: Transport, options: SendOptions<T>, timeoutMs: number, attempt: number): Promise<T> {
  const controller = new AbortController()
  const { signal } = options
  const forward = () => controller.abort(signal?.reason)
  if (signal?.aborted) throw signal.reason
  signal?.addEventListener('abort', forward, { once: true })
  let timedOut = false
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true
          controller.abort(new TimeoutError(timeoutMs))
        }, timeoutMs)
      : undefined
  let keepSignal = false
  try {
    let response: Response
    try {
      response = await transport.fetch(options.url, {
        method: options.method,
        headers: options.headers,
        body: options.body?.(),
        signal: controller.signal,
        ...(transport.credentials ? { credentials: transport.credentials } : {}),
      })
    } catch (error) {
      throw failure(error, timedOut, timeoutMs, signal)
    }
    transport.onResponse?.(response)
    options.onResponse?.(response)
    try {
      if (!response.ok) {
        const error = await options.fail(response, attempt)
        if (error) throw error
      }
      const result = await options.read(response)
      keepSignal = options.streaming === true
      return result
    } catch (error) {
      if (timedOut || signal?.aborted || isFetchFailure(error)) throw failure(error, timedOut, timeoutMs, signal)
      throw error
    }
  } finally {
    clearTimeout(timer)
    if (!keepSignal) signal?.removeEventListener('abort', forward)
  }
}

function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'AbortError')
}

function failure(error: unknown, timedOut: boolean, timeoutMs: number, signal: AbortSignal | undefined): unknown {
  if (timedOut) return new TimeoutError(timeoutMs)
  if (signal?.aborted) return signal.reason
  if (error instanceof NetworkError || error instanceof TimeoutError) return error
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return new NetworkError(`${error instanceof Error ? error.message : String(error)}${cause}`, { cause: error })
}
