/** Time as the dispatcher sees it: injectable, so that pacing can be tested without waiting. */
export type Clock = {
  now(): number
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted || ms <= 0) return resolve()
      const done = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      signal.addEventListener('abort', done, { once: true })
    }),
}

/**
 * One channel's pace in one instance: at most `perSecond` messages a second (spaced evenly, no
 * burst: a provider's messages-per-second limit counts any second), and a pause when the provider
 * said it is over its rate. Waits on one timer, never by polling.
 */
export type Pacer = {
  /**
   * Resolves when `count` messages may go (reserving their time), or `false` at once if `signal`
   * aborts first (nothing is then reserved for them).
   */
  take(count: number, signal: AbortSignal): Promise<boolean>
  /** No message goes before `ms` from now (a 429): later pauses extend it, earlier ones do not shorten it. */
  pause(ms: number): void
  /** When the current pause ends (ms on the clock), or 0. */
  readonly pausedUntil: number
}

export function createPacer(perSecond: number | undefined, clock: Clock): Pacer {
  const spacingMs = perSecond && perSecond > 0 ? 1000 / perSecond : 0
  /** The earliest time the next message may go: reservations are made in turn. */
  let nextFree = 0
  let pausedUntil = 0
  return {
    get pausedUntil() {
      return pausedUntil
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, clock.now() + ms)
    },
    async take(count, signal) {
      for (;;) {
        if (signal.aborted) return false
        const now = clock.now()
        const at = Math.max(now, nextFree, pausedUntil)
        if (at <= now) {
          // The time from now is reserved for these messages; the next take waits it out.
          nextFree = now + count * spacingMs
          return true
        }
        // Another take may have reserved the slot meanwhile, or a pause begun: look again after waiting.
        await clock.sleep(at - now, signal)
      }
    },
  }
}
