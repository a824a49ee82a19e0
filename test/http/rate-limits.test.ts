import { randomInt } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, postJson, seedEvent, startTestServer, type TestServer } from '../support/harness.js'

const WINDOW_MS = 1_500
let app: TestServer
let setId: string
beforeAll(async () => {
  app = await startTestServer({ rateLimits: { windowMs: WINDOW_MS, clientIpHeader: 'cf-connecting-ip' } })
  setId = (await seedEvent(app.orm)).sets[0]!.id
})
afterAll(() => app?.stop())

/** An address of the documentation range that no other test uses. */
const someIp = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 255)}`

const register = (ip: string, base = app.url) =>
  postJson(`${base}/sets/${setId}/sessions`, { guests: [] }, { headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip } })

async function expectTooManyRequests(response: Response) {
  expect(response.status).toBe(429)
  expect(await response.json()).toEqual({ error: 'Too many requests. Try again in a minute.' })
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
    const ip = someIp()
    for (let i = 0; i < 60; i++) await register(ip)
    expect((await register(ip)).status).toBe(429)
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 100))
    expect((await register(ip)).status).toBe(400)
  })

  it('when one client is limited, then another client and the other limited routes still count on their own', async () => {
    const ip = someIp()
    for (let i = 0; i < 61; i++) await register(ip)
    expect((await register(ip)).status).toBe(429)
    expect((await register(someIp())).status).toBe(400)
    const zip = await fetch(`${app.url}/gallery/AAAAAAAAAAAAAAAAAAAAAA/zip`, { headers: { 'cf-connecting-ip': ip } })
    expect(zip.status).toBe(404)
  })

  it('when the client-IP header is not an IP, then the connecting address is counted instead', async () => {
    const forged = () => register(`not-an-ip-${randomInt(0, 1e9)}`)
    const statuses = []
    for (let i = 0; i < 61; i++) statuses.push((await forged()).status)
    expect(statuses.at(-1)).toBe(429)
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 100))
  })

  it('when the zip route is asked 61 times, then the 61st answers 429', async () => {
    const ip = someIp()
    for (let i = 0; i < 60; i++) await fetch(`${app.url}/gallery/x/zip`, { headers: { 'cf-connecting-ip': ip } })
    await expectTooManyRequests(await fetch(`${app.url}/gallery/x/zip`, { headers: { 'cf-connecting-ip': ip } }))
  })

  it('when staff sign-in is tried 11 times, then the 11th answers 429', async () => {
    const ip = someIp()
    const signIn = () => postJson(`${app.url}/api/auth/sign-in/email`, {}, { headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip } })
    for (let i = 0; i < 10; i++) expect((await signIn()).status).not.toBe(429)
    await expectTooManyRequests(await signIn())
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
      const ip = someIp()
      for (let i = 0; i < 30; i++) expect((await register(ip, first.url)).status).toBe(400)
      for (let i = 0; i < 30; i++) expect((await register(ip, second.url)).status).toBe(400)
      await expectTooManyRequests(await register(ip, first.url))
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
  })
})
