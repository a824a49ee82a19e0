import { request } from 'node:http'

import { describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'

const app = withTestServer({ rateLimits: { windowMs: 60_000, clientIpHeader: 'cf-connecting-ip' } })

/**
 * Other spellings of a path that oRPC resolves to it: dot segments (a WHATWG URL parser resolves
 * them, `%2e` and backslashes included) and empty segments (its router skips them).
 */
const SPELLINGS: [string, (path: string) => string][] = [
  ['/./x', (path) => `/.${path}`],
  ['/y/../x', (path) => `/y/..${path}`],
  ['/%2e/x', (path) => `/%2e${path}`],
  ['/y/%2E%2e/x', (path) => `/y/%2E%2e${path}`],
  ['/y\\..\\x', (path) => `/y\\..\\${path.slice(1)}`],
  ['/x//', (path) => `${path}//`],
  ['/x///', (path) => `${path}///`],
  ['//x', (path) => `/${path}`],
]

/** A request with its path sent exactly as written: fetch would resolve the dot segments itself. */
function raw(method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}) {
  const { port } = new URL(app.url)
  return new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.once('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }))
    })
    req.once('error', reject)
    req.end(options.body)
  })
}

/** A different address each time, so that one test's limit never falls on another's requests. */
let lastIp = 0
const someIp = () => `203.0.113.${++lastIp}`

describe('a path spelled with dot segments or backslashes', () => {
  it.each(SPELLINGS)('when a client over its track limit writes the path as %s, then it is still limited', async (_name, spell) => {
    const ip = someIp()
    const headers = { 'content-type': 'text/plain', 'cf-connecting-ip': ip }
    for (let i = 0; i < 60; i++) expect((await raw('POST', '/track', { headers, body: '{}' })).status).toBe(400)
    const response = await raw('POST', spell('/track'), { headers, body: '{}' })
    expect(response.status).toBe(429)
    expect(JSON.parse(response.body)).toEqual({ error: 'Too many requests. Try again in a minute.', code: 'rate_limited' })
  })

  it.each(SPELLINGS)(
    'when written as %s, then each route keeps its own answers (bad body text, 413, plain Not Found, plain Unauthorized)',
    async (_name, spell) => {
      const track = await raw('POST', spell('/track'), {
        headers: { 'content-type': 'application/json', 'cf-connecting-ip': someIp() },
        body: '{bad',
      })
      expect([track.status, JSON.parse(track.body)]).toEqual([400, { error: 'bad body', code: 'bad_body' }])

      const contact = await raw('POST', spell('/contact'), {
        headers: { 'content-type': 'application/json', 'cf-connecting-ip': someIp() },
        body: JSON.stringify({ fields: { Name: 'x'.repeat(17_000) } }),
      })
      expect([contact.status, JSON.parse(contact.body)]).toEqual([413, { error: 'Message too long', code: 'payload_too_large' }])

      const zip = await raw('GET', spell('/gallery/AAAAAAAAAAAAAAAAAAAAAA/zip'))
      expect([zip.status, zip.type, zip.body]).toEqual([404, 'text/plain; charset=utf-8', 'Not Found'])

      const booth = await raw('GET', spell('/booth/events'))
      expect([booth.status, booth.type, booth.body]).toEqual([401, 'text/plain; charset=utf-8', 'Unauthorized'])
    },
  )
})
