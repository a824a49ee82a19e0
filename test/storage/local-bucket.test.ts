import { existsSync } from 'node:fs'
import { request } from 'node:http'

import { createClient, isDefinedError, safe } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, startTestServer, type TestServer, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'

const app = withTestServer({}, { now: () => new Date(Date.now() + clockOffset) })
let boothKey: string
let clockOffset = 0
beforeAll(async () => {
  boothKey = await createTestBoothKey(app)
})

async function uploadTarget() {
  const { sets } = await seedEvent(app.orm)
  const kiosk = createClient({ baseUrl: app.url })
  const session = await kiosk.kiosk.registerGuests({
    params: { setId: sets[0]!.id },
    body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] },
  })
  const booth = createClient({ baseUrl: app.url, boothKey })
  return (await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })).uploads[0]!
}

/** A request with the path sent exactly as written, as an attacker would, not normalised by a client. */
function rawRequest(method: string, path: string, body?: Buffer): Promise<{ status: number; body: string }> {
  const { port } = new URL(app.url)
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { 'content-type': 'image/jpeg' } }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function expectS3Error(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/xml/)
  expect(await response.text()).toContain(`<Code>${code}</Code>`)
}

describe('the presigned PUT /photos/<key> of the local bucket', () => {
  it('when the signature is tampered with, then 403 SignatureDoesNotMatch and nothing is stored', async () => {
    const target = await uploadTarget()
    const url = new URL(target.url)
    const signature = url.searchParams.get('signature')!
    url.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`)
    await expectS3Error(await fetch(url, { method: 'PUT', headers: target.headers, body: makeJpeg(8, 8) }), 403, 'SignatureDoesNotMatch')
    expect(await (await fetch(`${app.url}/photos/${target.key}`)).text()).toBe('Not Found')
  })

  it('when the signature of one key is used for another, then 403', async () => {
    const [first, second] = [await uploadTarget(), await uploadTarget()]
    const stolen = `${app.url}/photos/${second.key}${new URL(first.url).search}`
    await expectS3Error(await fetch(stolen, { method: 'PUT', headers: first.headers, body: makeJpeg(8, 8) }), 403, 'SignatureDoesNotMatch')
  })

  it('when the Content-Type is not image/jpeg, then 403 as S3 answers a mismatched signature', async () => {
    const target = await uploadTarget()
    await expectS3Error(
      await fetch(target.url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: makeJpeg(8, 8) }),
      403,
      'SignatureDoesNotMatch',
    )
  })

  it('when the URL has expired, then 403 AccessDenied', async () => {
    const target = await uploadTarget()
    clockOffset = 16 * 60 * 1000
    try {
      await expectS3Error(await fetch(target.url, { method: 'PUT', headers: target.headers, body: makeJpeg(8, 8) }), 403, 'AccessDenied')
    } finally {
      clockOffset = 0
    }
  })

  it('when the query carries no signature, then 403 AccessDenied', async () => {
    const target = await uploadTarget()
    await expectS3Error(
      await fetch(`${app.url}/photos/${target.key}`, { method: 'PUT', headers: target.headers, body: makeJpeg(8, 8) }),
      403,
      'AccessDenied',
    )
  })

  it('when the body is over 25 MB, then 400 EntityTooLarge and nothing is stored', async () => {
    const target = await uploadTarget()
    const body = Buffer.alloc(25 * 1024 * 1024 + 1)
    await expectS3Error(await fetch(target.url, { method: 'PUT', headers: target.headers, body }), 400, 'EntityTooLarge')
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 26; i++) controller.enqueue(new Uint8Array(1024 * 1024))
        controller.close()
      },
    })
    const response = await fetch(target.url, { method: 'PUT', headers: target.headers, body: chunked, duplex: 'half' })
    await expectS3Error(response, 400, 'EntityTooLarge')
    expect((await fetch(`${app.url}/photos/${target.key}`)).status).toBe(404)
  })

  it('when a valid upload arrives, then GET serves the same bytes as image/jpeg', async () => {
    const target = await uploadTarget()
    const image = makeJpeg(20, 10)
    expect((await fetch(target.url, { method: 'PUT', headers: target.headers, body: image })).status).toBe(200)
    const served = await fetch(`${app.url}/photos/${target.key}`)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/jpeg')
    expect(served.headers.get('strict-transport-security')).toBeTruthy()
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true)
  })
})

describe('paths that try to leave the bucket', () => {
  for (const path of [
    '/photos/../../../../etc/passwd',
    '/photos/..%2f..%2f..%2f..%2fetc%2fpasswd',
    '/photos/sessions/..%2f..%2f..%2f..%2fetc/passwd.jpg',
    '/photos/sessions/%2e%2e/%2e%2e/package.json',
    '/photos/%2e%2e%5c%2e%2e%5cpackage.json',
    '/photos/sessions/a/..',
    '/photos/',
  ]) {
    it(`when GET ${path}, then 404 and no file outside the bucket is read`, async () => {
      const response = await rawRequest('GET', path)
      expect(response.status).toBe(404)
      expect(response.body).not.toMatch(/root:|"name"/)
    })

    it(`when PUT ${path}, then 404 and nothing is written`, async () => {
      const response = await rawRequest('PUT', `${path}?expires=9999999999&signature=x`, makeJpeg(4, 4))
      expect(response.status).toBe(404)
    })
  }

  it('when a traversal PUT is tried, then no file appears beside the bucket', async () => {
    await rawRequest('PUT', '/photos/sessions/..%2f..%2fescaped.jpg?expires=9999999999&signature=x', makeJpeg(4, 4))
    expect(existsSync('escaped.jpg')).toBe(false)
  })
})

describe('a deployed (production) instance', () => {
  let production: TestServer
  beforeAll(async () => {
    production = await startTestServer({
      mode: 'production',
      storage: { kind: 'none' },
      publicUrl: 'https://booth.example.com',
      cdnUrl: 'https://cdn.example.com',
      galleryUrl: 'https://example.com/g',
    })
  })
  afterAll(() => production?.stop())

  it('when PUT /photos/* is asked, then 404', async () => {
    const response = await fetch(`${production.url}/photos/sessions/a/b.jpg?expires=9999999999&signature=x`, {
      method: 'PUT',
      headers: { 'content-type': 'image/jpeg' },
      body: makeJpeg(4, 4),
    })
    expect(response.status).toBe(404)
    expect(await response.text()).toBe('Not Found')
  })

  it('when storage is not configured, then asking for uploads answers 503 { error }', async () => {
    const { sets } = await seedEvent(production.orm)
    const kiosk = createClient({ baseUrl: production.url })
    const session = await kiosk.kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] },
    })
    const booth = createClient({ baseUrl: production.url, boothKey: await createTestBoothKey(production) })
    const [error] = await safe(booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } }))
    expect(isDefinedError(error) && [error.code, error.status, error.message]).toEqual([
      'SERVICE_UNAVAILABLE',
      503,
      'photo storage is not configured',
    ])
  })
})
