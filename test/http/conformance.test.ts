import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { postJson, seedEvent, startTestServer, type TestServer } from '../support/harness.js'

let app: TestServer
beforeAll(async () => {
  app = await startTestServer()
})
afterAll(() => app?.stop())

function expectSecurityHeaders(response: Response) {
  expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains')
  expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN')
  expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  expect(response.headers.get('referrer-policy')).toBe('no-referrer')
  expect(response.headers.get('x-powered-by')).toBeNull()
  // The rest of helmet's defaults, sent as helmet itself would.
  expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'self';/)
  expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin')
  expect(response.headers.get('x-permitted-cross-domain-policies')).toBe('none')
}

async function expectJsonError(response: Response, status: number) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const text = await response.text()
  expect(text).not.toMatch(/<html|<!DOCTYPE|at .*\.(ts|js):\d+/i)
  return JSON.parse(text)
}

describe('every response', () => {
  it('when routes answer 200, 201, 400 and 404, then each carries the security headers', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const responses = [
      await fetch(`${app.url}/events/${event.slug}/sets/${sets[0]!.slug}`),
      await postJson(`${app.url}/sets/${sets[0]!.id}/sessions`, { guests: [{ name: 'Ada', phone: '+1 415 555 2671' }] }),
      await postJson(`${app.url}/sets/${sets[0]!.id}/sessions`, { guests: [] }),
      await fetch(`${app.url}/gallery/events/no-such-event`),
      await fetch(`${app.url}/no/such/route`),
      await fetch(`${app.url}/openapi.json`),
    ]
    expect(responses.map((response) => response.status)).toEqual([200, 201, 400, 404, 404, 200])
    for (const response of responses) expectSecurityHeaders(response)
  })
})

describe('unknown routes and methods', () => {
  for (const [method, path] of [
    ['GET', '/no/such/route'],
    ['POST', '/gallery/events/x'],
    ['DELETE', '/sets/abc/sessions'],
    ['PUT', '/'],
    ['GET', '/%E0%A4%A'],
  ] as const) {
    it(`when ${method} ${path} is asked, then 404 JSON { error }, never an HTML page`, async () => {
      const response = await fetch(`${app.url}${path}`, { method, body: method === 'GET' ? undefined : '<xml/>' })
      expect(await expectJsonError(response, 404)).toEqual({ error: 'Not Found' })
      expectSecurityHeaders(response)
    })
  }
})

describe('server faults', () => {
  it('when the database is gone, then 500 { error: "Internal server error" } with nothing leaked', async () => {
    const broken = await startTestServer()
    const { event } = await seedEvent(broken.orm)
    await broken.orm.close(true)
    try {
      const response = await fetch(`${broken.url}/gallery/events/${event.slug}`)
      expect(await expectJsonError(response, 500)).toEqual({ error: 'Internal server error' })
      expectSecurityHeaders(response)
    } finally {
      await new Promise((resolve) => broken.server.close(resolve))
    }
  })
})
