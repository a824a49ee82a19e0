import { randomInt } from 'node:crypto'

import { beforeAll, describe, expect, it, vi } from 'vitest'

import { createTestBoothKey, postJson, seedEvent, startTestServer, withTestServer } from '../support/harness.js'

/** The production window: no test waits for it to pass, they move the clock. */
const WINDOW_MS = 60_000
const settings = { rateLimits: { windowMs: WINDOW_MS, clientIpHeader: 'cf-connecting-ip' } }
const app = withTestServer(settings)
let setId: string
beforeAll(async () => {
  setId = (await seedEvent(app.orm)).sets[0]!.id
})

/** An address of a documentation range that no other test of the run uses: each counts from zero. */
let lastIp = 0
const someIp = () => `198.51.100.${++lastIp}`
/**
 * For the Redis, whose counts outlive the run by up to a minute: a /56 of the IPv6 documentation
 * range (what the limiter counts) with 24 random bits, that a run a moment ago will not have used.
 */
const someIpv6 = () => {
  const bits = randomInt(0, 2 ** 24)
  return `2001:db8:${(bits >> 8).toString(16)}:${((bits & 0xff) << 8).toString(16)}::1`
}

const register = (ip: string, base = app.url) =>
  postJson(`${base}/sets/${setId}/sessions`, { guests: [] }, { headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip } })

async function expectTooManyRequests(response: Response) {
  expect(response.status).toBe(429)
  expect(await response.json()).toEqual({ error: 'Too many requests. Try again in a minute.', code: 'rate_limited' })
  expect(response.headers.get('retry-after')).toBeNull()
  expect([...response.headers.keys()].filter((name) => name.startsWith('ratelimit') || name.startsWith('x-ratelimit'))).toEqual([])
  expect(response.headers.get('strict-transport-security')).toBeTruthy()
}

describe('rate limits', () => {
  it('when a client sends 61 registrations in a minute, then the 61st answers 429 with the spec body and no Retry-After', async () => {
    const ip = someIp()
    const statuses = []
    for (let i = 0; i < 60; i++) statuses.push((await register(ip)).status)
    expect(statuses.every((status) => status === 400)).toBe(true)
    await expectTooManyRequests(await register(ip))
  })

  it('when the window has passed, then the client may send again', async () => {
    // The limiter (express-rate-limit's memory store) reads Date.now(): the test sets the date
    // instead of waiting a minute. Only Date is replaced; timers run as ever.
    const start = Date.now()
    vi.setSystemTime(start)
    try {
      const ip = someIp()
      for (let i = 0; i < 60; i++) expect((await register(ip)).status).toBe(400)
      expect((await register(ip)).status).toBe(429)
      vi.setSystemTime(start + WINDOW_MS - 1)
      expect((await register(ip)).status).toBe(429)
      vi.setSystemTime(start + WINDOW_MS)
      expect((await register(ip)).status).toBe(400)
    } finally {
      vi.useRealTimers()
    }
  })

  it('when one client is limited, then another client and the other limited routes still count on their own', async () => {
    const ip = someIp()
    const statuses = []
    for (let i = 0; i < 61; i++) statuses.push((await register(ip)).status)
    expect(statuses).toEqual([...Array<number>(60).fill(400), 429])
    expect((await register(ip)).status).toBe(429)
    expect((await register(someIp())).status).toBe(400)
    const zip = await fetch(`${app.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA/zip`, { headers: { 'cf-connecting-ip': ip } })
    expect(zip.status).toBe(404)
  })

  it('when the client-IP header is not an IP, then the connecting address is counted instead', async () => {
    // A server of its own: every request here counts against 127.0.0.1, which no other test may share.
    const own = await startTestServer(settings)
    try {
      const forged = () => register(`not-an-ip-${randomInt(0, 1e9)}`, own.url)
      const statuses = []
      for (let i = 0; i < 61; i++) statuses.push((await forged()).status)
      expect(statuses).toEqual([...Array<number>(60).fill(400), 429])
    } finally {
      await own.stop()
    }
  })

  it('when the connection does not come from a trusted proxy, then its client-IP header is ignored: a new value per request does not escape the sign-in limit', async () => {
    // The edge is 10.0.0.0/8; this test's requests come from 127.0.0.1, as a client reaching the instance directly.
    const own = await startTestServer({ rateLimits: { ...settings.rateLimits, trustedProxies: ['10.0.0.0/8'] } })
    try {
      const signIn = () =>
        postJson(
          `${own.url}/api/auth/sign-in/email`,
          { email: 'nobody@example.org', password: 'not the password' },
          { headers: { 'content-type': 'application/json', origin: own.url, 'cf-connecting-ip': someIp() } },
        )
      const statuses = []
      for (let i = 0; i < 11; i++) statuses.push((await signIn()).status)
      expect(statuses).toEqual([...Array<number>(10).fill(401), 429])
    } finally {
      await own.stop()
    }
  })

  it('when the connection comes from a trusted proxy (loopback, the development default), then each client-IP value counts on its own', async () => {
    const statuses = []
    for (let i = 0; i < 12; i++) {
      const response = await postJson(
        `${app.url}/api/auth/sign-in/email`,
        { email: 'nobody@example.org', password: 'not the password' },
        { headers: { 'content-type': 'application/json', origin: app.url, 'cf-connecting-ip': someIp() } },
      )
      statuses.push(response.status)
    }
    expect(statuses).toEqual(Array<number>(12).fill(401))
  })

  it('when the zip route is asked 61 times, then the 61st answers 429', async () => {
    const ip = someIp()
    for (let i = 0; i < 60; i++) expect((await fetch(`${app.url}/gallery/x/zip`, { headers: { 'cf-connecting-ip': ip } })).status).toBe(404)
    await expectTooManyRequests(await fetch(`${app.url}/gallery/x/zip`, { headers: { 'cf-connecting-ip': ip } }))
  })

  it('when staff sign-in is tried 11 times, then the 11th answers 429', async () => {
    const ip = someIp()
    const signIn = () =>
      postJson(
        `${app.url}/api/auth/sign-in/email`,
        { email: 'nobody@example.org', password: 'not the password' },
        {
          headers: { 'content-type': 'application/json', origin: app.url, 'cf-connecting-ip': ip },
        },
      )
    for (let i = 0; i < 10; i++) {
      const response = await signIn()
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ error: 'Invalid email or password', code: 'unauthorized' })
    }
    await expectTooManyRequests(await signIn())
    // Any sign-in path counts, a method Better Auth does not have included.
    const other = await postJson(
      `${app.url}/api/auth/sign-in/magic-link`,
      {},
      { headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip } },
    )
    await expectTooManyRequests(other)
  })

  it('when a booth calls its routes many times, then it is never limited', async () => {
    const key = await createTestBoothKey(app)
    const ip = someIp()
    const statuses = new Set<number>()
    for (let i = 0; i < 80; i++) {
      statuses.add((await fetch(`${app.url}/booth/events`, { headers: { authorization: `Bearer ${key}`, 'cf-connecting-ip': ip } })).status)
    }
    expect([...statuses]).toEqual([200])
  })
})

describe('rate limits in Redis', () => {
  it('when two instances share a Redis, then they share one count', async () => {
    const settings = { rateLimits: { windowMs: 60_000, clientIpHeader: 'cf-connecting-ip' }, redisUrl: 'redis://127.0.0.1:6379' }
    const [first, second] = [await startTestServer(settings), await startTestServer(settings)]
    try {
      const ip = someIpv6()
      for (let i = 0; i < 30; i++) expect((await register(ip, first.url)).status).toBe(400)
      for (let i = 0; i < 30; i++) expect((await register(ip, second.url)).status).toBe(400)
      await expectTooManyRequests(await register(ip, first.url))
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
  })
})
