import { request } from 'node:http'

import { describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'

const app = withTestServer()

/** A request whose body is sent in pieces, without a Content-Length (chunked). */
function sendChunked(url: string, method: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    for (let sent = 0; sent < bytes; sent += 8192) req.write(Buffer.alloc(Math.min(8192, bytes - sent), 0x20))
    req.end()
  })
}

describe('a body over the limit to a path no route matches', () => {
  for (const [method, path] of [
    ['POST', '/nope'],
    ['POST', '/api/auth/sign-in/x'],
    ['DELETE', '/gallery/abc'],
    ['PUT', '/photos/../x'],
    ['PATCH', '/track'],
  ] as const) {
    it(`when ${method} ${path} sends 70,000 bytes, then it answers 404 and the service keeps answering`, async () => {
      const declared = await fetch(`${app.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(70_000),
      })
      expect(declared.status).toBe(404)
      await declared.arrayBuffer()
      // Node itself refuses a chunked DELETE before any route sees it.
      if (method !== 'DELETE') expect((await sendChunked(`${app.url}${path}`, method, 200_000)).status).toBe(404)
      // Node discards the unread body after the answer: it must not end the process.
      const again = await fetch(`${app.url}/openapi.json`)
      expect(again.status).toBe(200)
    })
  }

  it('when a routed body is over 64 KB, with or without a Content-Length, then 400 and the service keeps answering', async () => {
    const declared = await fetch(`${app.url}/sets/abc/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(70_000, 0x20),
    })
    expect(declared.status).toBe(400)
    expect(await declared.json()).toEqual({
      error: 'Request body too large: at most 65536 bytes',
      code: 'body_too_large',
    })
    const chunked = await sendChunked(`${app.url}/sets/abc/sessions`, 'POST', 300_000)
    expect(chunked.status).toBe(400)
    expect(JSON.parse(chunked.body)).toEqual({ error: 'Request body too large: at most 65536 bytes', code: 'body_too_large' })
    expect((await fetch(`${app.url}/openapi.json`)).status).toBe(200)
  })
})

describe('malformed %-escapes and OPTIONS', () => {
  for (const path of ['/gallery/%ff/zip', '/gallery/%E0%A4%A/zip', '/gallery/abc/photos/%ff/download', '/photos/sessions/%ff/x.jpg']) {
    it(`when GET ${path}, then the byte routes' plain 404 Not Found, like any unknown id`, async () => {
      const response = await fetch(`${app.url}${path}`)
      expect(response.status).toBe(404)
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(await response.text()).toBe('Not Found')
    })
  }

  it('when a JSON route is asked with a malformed %-escape, then its own 404 text', async () => {
    const response = await fetch(`${app.url}/gallery/%ff`)
    expect([response.status, await response.json()]).toEqual([404, { error: 'no such gallery', code: 'no_such_gallery' }])
  })

  for (const path of ['/photos/sessions/a/b.jpg', '/gallery/abc/zip', '/track', '/sets/abc/sessions', '/openapi.json', '/booth/events']) {
    it(`when OPTIONS ${path}, then 404 JSON { error: "Not Found" } as on every other route`, async () => {
      const response = await fetch(`${app.url}${path}`, { method: 'OPTIONS' })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: 'Not Found', code: 'not_found' })
      expect(response.headers.get('allow')).toBeNull()
    })
  }
})
