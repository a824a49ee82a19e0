/**
 * Drill: a rolling restart behind a load balancer, with the default shutdown settings of
 * production. Two instances in processes of their own (MODE=production, SHUTDOWN_DELAY_MS and
 * SHUTDOWN_GRACE_MS unset) behind test/support/balancer.ts (it probes /readyz every 500 ms, takes
 * an instance out after 2 failed probes, in after 1 good one, and answers 502 for a request its
 * instance failed). Under a steady 25 requests a second of the event's gallery JSON: SIGTERM A and
 * put A' (started beforehand, listening) behind the balancer, wait for A to exit; then the same
 * for B with B'.
 *
 * Asserts: not one request failed (no 502, no 5xx, no request without an answer), both stopped
 * instances exited 0, and the load was served by all four in turn. Prints the requests, answers by
 * status, the longest wait, and how long each instance took from SIGTERM to exit.
 */
import { randomBytes } from 'node:crypto'

import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startBalancer, type Balancer } from '../support/balancer.js'
import { scratchDatabases } from '../support/databases.js'
import { forkDrillService, type DrillService } from '../support/drill-processes.js'
import { seedEvent, seedSession } from '../support/harness.js'
import { until } from '../support/until.js'

const PER_SECOND = 25

const databases = scratchDatabases('outage_rolling')
let orm: Orm
let balancer: Balancer
let env: NodeJS.ProcessEnv
let path: string
const services: DrillService[] = []

beforeAll(async () => {
  const databaseUrl = await databases.create()
  orm = await openOrm(databaseUrl)
  await migrate(orm)
  const { event, sets } = await seedEvent(orm)
  await seedSession(orm, sets[0]!.id, { photos: 2 })
  path = `/gallery/events/${event.slug}`
  balancer = await startBalancer()
  // What production requires, and nothing about the stop: its defaults are what is drilled.
  env = {
    MODE: 'production',
    DATABASE_URL: databaseUrl,
    PUBLIC_URL: balancer.url,
    CDN_URL: 'https://cdn.example.com/photos',
    GALLERY_URL: `${balancer.url}/g`,
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    DELIVERY: 'off',
    COPIES: 'off',
    SHUTDOWN_DELAY_MS: undefined,
    SHUTDOWN_GRACE_MS: undefined,
  }
})

afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
  await balancer?.close()
  await orm?.close()
  await databases.dropAll()
})

async function start(): Promise<DrillService> {
  const service = await forkDrillService(env)
  services.push(service)
  return service
}

type Answer = { status: number; ms: number; failure?: string }

/** PER_SECOND requests a second through the balancer, each on its own (open loop), until `stop()`. */
function startLoad() {
  const answers: Answer[] = []
  const pending = new Set<Promise<void>>()
  const timer = setInterval(() => {
    const startedAt = Date.now()
    const one: Promise<void> = fetch(`${balancer.url}${path}`, { signal: AbortSignal.timeout(20_000) })
      .then(async (response) => {
        await response.arrayBuffer()
        answers.push({ status: response.status, ms: Date.now() - startedAt })
      })
      .catch((error: unknown) => void answers.push({ status: 0, ms: Date.now() - startedAt, failure: String(error) }))
      .finally(() => pending.delete(one))
    pending.add(one)
  }, 1000 / PER_SECOND)
  return {
    answers,
    /** Resolves once `count` more answers have come. */
    more: (count: number) => {
      const target = answers.length + count
      return until(
        async () => answers.length,
        (length) => length >= target,
        20_000,
      )
    },
    stop: async () => {
      clearInterval(timer)
      await Promise.all([...pending])
      return answers
    },
  }
}

/**
 * SIGTERM `old` and put its successor (started beforehand, listening, not yet behind the
 * balancer) in service; resolves once `old` has exited.
 */
async function replace(
  old: DrillService,
  successor: DrillService,
): Promise<{ stopMs: number; exit: { code: number | null; signal: NodeJS.Signals | null } }> {
  const signalledAt = Date.now()
  old.child.kill('SIGTERM')
  balancer.add(successor.url)
  await balancer.whenUp(successor.url)
  const exit = await old.exited
  const stopMs = Date.now() - signalledAt
  balancer.remove(old.url)
  return { stopMs, exit }
}

describe('a rolling restart behind a load balancer', () => {
  it('when each of two production instances is replaced in turn under 25 requests a second, then not one request fails', async () => {
    // The two in service, and their successors, started at once (the successors wait, out of the balancer).
    const [a, b, a2, b2] = await Promise.all([start(), start(), start(), start()])
    balancer.add(a.url)
    balancer.add(b.url)
    await Promise.all([balancer.whenUp(a.url), balancer.whenUp(b.url)])

    const load = startLoad()
    await load.more(PER_SECOND)
    const first = await replace(a, a2)
    await load.more(PER_SECOND)
    const second = await replace(b, b2)
    await load.more(PER_SECOND)
    const answers = await load.stop()

    const counters = balancer.counters()
    const byStatus: Record<string, number> = {}
    for (const answer of answers)
      byStatus[answer.failure ? 'none' : answer.status] = (byStatus[answer.failure ? 'none' : answer.status] ?? 0) + 1
    const failed = answers.filter((answer) => answer.failure || answer.status !== 200)
    console.log(
      `rolling restart: ${answers.length} requests, answers ${JSON.stringify(byStatus)}, failed ${failed.length}, longest wait ${Math.max(...answers.map((answer) => answer.ms))} ms; ` +
        `A stopped in ${first.stopMs} ms (${first.exit.signal ?? first.exit.code}), B in ${second.stopMs} ms (${second.exit.signal ?? second.exit.code}); ` +
        `served by ${Object.values(counters.byBackend).join(' / ')}${counters.errors.length > 0 ? `; balancer errors: ${[...new Set(counters.errors)].join(', ')}` : ''}`,
    )

    expect(failed.map((answer) => answer.failure ?? `${answer.status}`)).toEqual([])
    expect(counters.errors).toEqual([])
    expect(first.exit).toEqual({ code: 0, signal: null })
    expect(second.exit).toEqual({ code: 0, signal: null })
    // Each of the four served some of the load.
    expect(Object.keys(counters.byBackend).sort()).toEqual([a.url, b.url, a2.url, b2.url].sort())
  }, 60_000)
})
