import { ERROR_CODE_TABLE, isErrorCode } from '@photobooth/sdk/contract'
import { describe, expect, it } from 'vitest'

import { postJson, seedEvent, startTestServer, withTestServer } from '../support/harness.js'

const app = withTestServer()

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
  const body = JSON.parse(text) as { code?: unknown }
  // Every JSON error carries a code of the closed list, whose status is the answer's.
  expect(isErrorCode(body.code) && ERROR_CODE_TABLE[body.code].status, JSON.stringify(body)).toBe(status)
  return body
}

describe('every response', () => {
  it('when the API answers JSON (200, 201, 400, 404), then with its Content-Length, not chunked', async () => {
    const { event, sets } = await seedEvent(app.orm)
    for (const response of [
      await fetch(`${app.url}/events/${event.slug}/sets/${sets[0]!.slug}`),
      await postJson(`${app.url}/sets/${sets[0]!.id}/sessions`, { guests: [{ name: 'Zoë', phone: '+1 415 555 2671' }] }),
      await postJson(`${app.url}/sets/${sets[0]!.id}/sessions`, { guests: [] }),
      await fetch(`${app.url}/gallery/events/no-such-event`),
    ]) {
      const body = new Uint8Array(await response.arrayBuffer())
      expect(response.headers.get('transfer-encoding'), response.url).toBeNull()
      expect(response.headers.get('content-length'), response.url).toBe(String(body.byteLength))
    }
  })

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
      expect(await expectJsonError(response, 404)).toEqual({ error: 'Not Found', code: 'not_found' })
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
      expect(await expectJsonError(response, 500)).toEqual({ error: 'Internal server error', code: 'internal' })
      expectSecurityHeaders(response)
    } finally {
      await new Promise((resolve) => broken.server.close(resolve))
    }
  })
})

describe('whatever the method, path, content type or body', () => {
  const paths = [
    '/',
    '/gallery/%E0%A4%A/zip',
    '/sets/%E0%A4%A/sessions',
    '/photos/sessions/%E0%A4%A/x.jpg',
    '/events/%/sets/x',
    '/gallery/events/%ZZ',
    '/track',
    '/contact',
    '/booth/events',
    '/openapi.json',
    '/gallery/x/photos/y/download',
    '/api/auth/sign-in/email',
    '/' + 'a'.repeat(5000),
  ]
  const bodies: [string, string][] = [
    ['application/json', '{"a":'],
    ['text/html', '<html><body>hi</body></html>'],
    ['application/x-www-form-urlencoded', 'a=1&b=2'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'],
    ['application/xml', '<?xml version="1.0"?><a/>'],
  ]
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    it(`when ${method} meets odd paths and bodies, then never HTML, never a stack, always the security headers, never a 500`, async () => {
      for (const path of paths) {
        const cases: [string, string][] = method === 'GET' ? [['text/plain', '']] : bodies
        for (const [contentType, body] of cases) {
          const response = await fetch(`${app.url}${path}`, {
            method,
            headers: { 'content-type': contentType },
            body: method === 'GET' ? undefined : body,
          })
          const text = await response.text()
          const where = `${method} ${path.slice(0, 40)} ${contentType}`
          expect(response.status, where).toBeLessThan(500)
          expect(response.headers.get('content-type') ?? '', where).not.toMatch(/html/)
          expect(text, where).not.toMatch(/<html|<!DOCTYPE|at .*\.(ts|js):\d+|node_modules/i)
          expect(response.headers.get('strict-transport-security'), where).toBeTruthy()
          expect(response.headers.get('x-content-type-options'), where).toBe('nosniff')
        }
      }
    })
  }
})
