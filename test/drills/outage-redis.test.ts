/**
 * Drill: the Redis that rate limits count in goes away, and comes back. Instance A (in this
 * process) reaches Redis (the real one on 127.0.0.1:6379) through a TCP proxy the drill controls;
 * instance B reaches it directly, so that "A counts in Redis" can be seen from outside: a client
 * that spent its 60 requests a minute on B is refused on A only if A counts in the same Redis.
 *
 * Asserts: A starts while Redis is cut; while Redis is down from the start, cut under A (killed),
 * and stalled (no byte through), registrations on A keep answering 201, each within 2 s (the limits
 * fail open); A never goes down; and after each restore, A counts in Redis again without a restart
 * (the time to recover is printed).
 */
import { randomInt } from 'node:crypto'

import { createLogger } from '@photobooth/server/logger'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { postJson, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'
import { notJson } from '../support/drill-output.js'

const REDIS = { host: '127.0.0.1', port: 6379 }
const IP_HEADER = 'x-drill-client-ip'
const REGISTRATIONS = 20
const LANES = 4
/**
 * What a registration may take while Redis is away: the limit's wait on Redis (REDIS_TIMEOUT_MS,
 * 250 ms) and the registration itself on a machine that runs another drill beside this one (up to
 * about 1 s on two cores). A Redis that held requests took 11 to 20 s.
 */
const LONGEST_WAIT_MS = 2_000
/** A request not answered by then is recorded as unanswered (so that a drill that fails, fails in time). */
const ABANDON_MS = 3_000

let proxy: TcpProxy
let a: TestServer | undefined
let b: TestServer
let setId: string
const logLines: string[] = []
const settings = { rateLimits: { windowMs: 60_000, clientIpHeader: IP_HEADER } }

beforeAll(async () => {
  proxy = await startTcpProxy(REDIS)
  b = await startTestServer({ ...settings, redisUrl: `redis://${REDIS.host}:${REDIS.port}` })
  setId = (await seedEvent(b.orm)).sets[0]!.id
})

afterAll(async () => {
  proxy?.restore()
  await a?.stop()
  await b?.stop()
  await proxy?.close()
})

/**
 * A client of its own: a /56 of the IPv6 documentation range with 24 random bits (the limits count
 * a /56 as one client), since Redis keeps counts across runs for the minute of the window.
 */
const nextIp = () => {
  const bits = randomInt(0, 2 ** 24)
  return `2001:db8:${(bits >> 8).toString(16)}:${((bits & 0xff) << 8).toString(16)}::1`
}
let guest = 0

type Registration = { status: number; ms: number; failure?: string }

/** `REGISTRATIONS` registrations on A, `LANES` at a time, each from an address of its own. */
async function registrations(server: TestServer): Promise<Registration[]> {
  const results: Registration[] = []
  let next = 0
  const lane = async () => {
    while (next++ < REGISTRATIONS) {
      const startedAt = Date.now()
      const response = await postJson(
        `${server.url}/sets/${setId}/sessions`,
        { guests: [{ name: `Redis ${++guest}`, email: `redis-${guest}@example.org` }] },
        { headers: { 'content-type': 'application/json', [IP_HEADER]: nextIp() }, signal: AbortSignal.timeout(ABANDON_MS) },
      ).catch((error: unknown) => String(error))
      if (typeof response === 'string') results.push({ status: 0, ms: Date.now() - startedAt, failure: response })
      else {
        await response.arrayBuffer()
        results.push({ status: response.status, ms: Date.now() - startedAt })
      }
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
  return results
}

/** One client's `count` tracking requests (an empty body: 400, counted all the same) on `server`; their statuses. */
async function track(server: TestServer, ip: string, count: number): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const response = await postJson(
      `${server.url}/track`,
      {},
      { headers: { 'content-type': 'application/json', [IP_HEADER]: ip }, signal: AbortSignal.timeout(ABANDON_MS) },
    ).catch(() => undefined)
    await response?.arrayBuffer()
    // 0: no answer within ABANDON_MS.
    statuses.push(response?.status ?? 0)
  }
  return statuses
}

/**
 * Until A counts in Redis: a new client spends its 60 tracking requests on B (in Redis), then asks
 * A, which refuses it (429) only if it reads the same count. How long that took from `from`.
 */
async function countsInRedisAgain(from: number, ms = 15_000): Promise<number> {
  let lastAnswer = 0
  while (Date.now() - from < ms) {
    const ip = nextIp()
    expect(await track(b, ip, 60)).toEqual(Array<number>(60).fill(400))
    lastAnswer = (await track(a!, ip, 1))[0]!
    if (lastAnswer === 429) return Date.now() - from
  }
  throw new Error(`A did not count in Redis again within ${ms} ms (its last answer to a client over the limit: ${lastAnswer})`)
}

function figures(label: string, results: Registration[], recoveredMs: number, extra = '') {
  const byStatus: Record<string, number> = {}
  for (const result of results)
    byStatus[result.failure ? 'none' : result.status] = (byStatus[result.failure ? 'none' : result.status] ?? 0) + 1
  console.log(
    `redis ${label}: ${results.length} registrations, answers ${JSON.stringify(byStatus)}, longest wait ${Math.max(...results.map((result) => result.ms))} ms, time to recover ${recoveredMs} ms${extra}`,
  )
}

const slow = (results: Registration[]) => results.filter((result) => result.failure || result.status !== 201 || result.ms > LONGEST_WAIT_MS)

describe('Redis goes away', () => {
  it('when Redis is down as the instance starts, then it starts, registers within 2 s each, and counts in Redis once Redis is back', async () => {
    proxy.cut()
    const startedAt = Date.now()
    a = await Promise.race([
      startTestServer(
        { ...settings, redisUrl: `redis://${proxy.address}` },
        { logger: createLogger({ level: 'info', write: (line) => void logLines.push(line) }) },
      ),
      new Promise<never>((_resolve, reject) =>
        setTimeout(() => reject(new Error('the instance did not start within 15 s with Redis down')), 15_000),
      ),
    ])
    const startMs = Date.now() - startedAt
    const results = await registrations(a)
    const restoredAt = Date.now()
    proxy.restore()
    const recoveredMs = await countsInRedisAgain(restoredAt)
    figures('down at start', results, recoveredMs, `, started in ${startMs} ms`)
    expect(slow(results)).toEqual([])
  }, 120_000)

  it('when Redis is killed under a running instance, then registrations answer 201 within 2 s each, and it counts in Redis once Redis is back', async () => {
    expect(await countsInRedisAgain(Date.now())).toBeLessThan(15_000)
    proxy.cut()
    const results = await registrations(a!)
    const restoredAt = Date.now()
    proxy.restore()
    const recoveredMs = await countsInRedisAgain(restoredAt)
    figures('killed', results, recoveredMs)
    expect(slow(results)).toEqual([])
  }, 120_000)

  it('when Redis stalls under a running instance, then registrations answer 201 within 2 s each, and it counts in Redis once Redis is back', async () => {
    expect(await countsInRedisAgain(Date.now())).toBeLessThan(15_000)
    proxy.stall()
    const results = await registrations(a!)
    const restoredAt = Date.now()
    proxy.restore()
    const recoveredMs = await countsInRedisAgain(restoredAt)
    figures('stalled', results, recoveredMs)
    expect(slow(results)).toEqual([])
    // Still up, and its log still JSON line by line.
    expect((await fetch(`${a!.url}/healthz`)).status).toBe(200)
    expect(notJson(logLines)).toEqual([])
  }, 120_000)
})
