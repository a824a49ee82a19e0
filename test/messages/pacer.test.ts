import { createPacer, type Clock } from '@photobooth/server/modules/messages/pacer'
import { describe, expect, it } from 'vitest'

/** A clock that moves only when a sleeper is waiting: each sleep jumps time to its end. Records the sleeps. */
function manualClock() {
  let now = 1_000_000
  const sleeps: number[] = []
  const clock: Clock = {
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal.aborted) return
      sleeps.push(ms)
      now += ms
    },
  }
  return { clock, sleeps, advance: (ms: number) => void (now += ms), at: () => now }
}

const live = () => new AbortController().signal

describe('the pace of a channel', () => {
  it('when no rate is set, then every take goes at once, without a sleep', async () => {
    const { clock, sleeps } = manualClock()
    const pacer = createPacer(undefined, clock)
    for (let i = 0; i < 100; i++) expect(await pacer.take(1, live())).toBe(true)
    expect(sleeps).toEqual([])
  })

  it('when the rate is 4 per second, then messages go 250 ms apart, from the first at once', async () => {
    const { clock, at } = manualClock()
    const pacer = createPacer(4, clock)
    const start = at()
    const times: number[] = []
    for (let i = 0; i < 9; i++) {
      await pacer.take(1, live())
      times.push(at() - start)
    }
    expect(times).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000])
    // Any one second holds at most 4 starts (+1 on its closing edge).
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(4)
  })

  it('when a batch takes several messages, then the next take waits for all of them', async () => {
    const { clock, at } = manualClock()
    const pacer = createPacer(10, clock)
    const start = at()
    await pacer.take(5, live())
    expect(at() - start).toBe(0)
    await pacer.take(1, live())
    expect(at() - start).toBe(500)
  })

  it('when the channel sat idle, then no burst is saved up: the next messages are spaced all the same', async () => {
    const { clock, at, advance } = manualClock()
    const pacer = createPacer(2, clock)
    await pacer.take(1, live())
    advance(10_000)
    const start = at()
    await pacer.take(1, live())
    await pacer.take(1, live())
    expect(at() - start).toBe(500)
  })

  it('when the provider said 429, then nothing goes until the pause ends, and a shorter pause does not cut it', async () => {
    const { clock, at } = manualClock()
    const pacer = createPacer(undefined, clock)
    const start = at()
    pacer.pause(1_500)
    pacer.pause(200)
    expect(pacer.pausedUntil).toBe(start + 1_500)
    await pacer.take(1, live())
    expect(at() - start).toBe(1_500)
  })

  it('when the dispatcher stops during a wait, then the take answers false at once', async () => {
    const { clock } = manualClock()
    const pacer = createPacer(1, clock)
    await pacer.take(1, live())
    const stop = new AbortController()
    stop.abort()
    expect(await pacer.take(1, stop.signal)).toBe(false)
  })
})
