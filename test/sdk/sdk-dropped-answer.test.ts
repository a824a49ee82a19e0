import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { createClient } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'

let app: TestServer
let proxy: Server
let proxyUrl: string
/** How many answers the venue's Wi-Fi loses: the request reaches the service, its answer never comes back. */
let answersToDrop = 0
const seen: { method: string; key: string | undefined }[] = []

beforeAll(async () => {
  app = await startTestServer()
  const target = new URL(app.url)
  // A proxy standing for the venue's Wi-Fi: every request reaches the service; a dropped answer is
  // read from the service whole, then the client's connection is cut before a byte of it is sent.
  proxy = createServer((req, res) => {
    seen.push({ method: req.method!, key: req.headers['idempotency-key'] as string | undefined })
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (req.method !== 'GET' && answersToDrop > 0) {
          answersToDrop--
          answer.resume()
          answer.on('end', () => res.socket?.destroy())
          return
        }
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
})
afterAll(async () => {
  proxy?.closeAllConnections()
  await new Promise((resolve) => proxy?.close(resolve))
  await app?.stop()
})

describe('a kiosk on venue Wi-Fi', () => {
  it('when the answer to a registration is lost, then the SDK retries with the same key and the service makes one session', async () => {
    const { sets } = await seedEvent(app.orm)
    answersToDrop = 1
    seen.length = 0
    const kiosk = createClient({ baseUrl: proxyUrl, retry: { minDelayMs: 1, maxDelayMs: 2 } })
    const session = await kiosk.kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Ada Lovelace', email: 'ada@example.org' }] },
    })
    expect(session).toMatchObject({ label: 'Ada Lovelace', status: 'active' })

    // Two tries reached the service, with one key; the second was answered from the first.
    expect(seen).toHaveLength(2)
    expect(seen[0]!.key).toMatch(/^[\x21-\x7e]{1,255}$/)
    expect(seen[1]!.key).toBe(seen[0]!.key)
    const rows = await app.orm.em.fork().execute<{ id: string }[]>('select id from session where set_id = ?', [sets[0]!.id])
    expect(rows.map((row) => row.id)).toEqual([session.id])
  })
})
