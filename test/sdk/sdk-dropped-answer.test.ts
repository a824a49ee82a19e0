import { createClient } from '@photobooth/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { startVenueProxy, type VenueProxy } from '../support/venue-proxy.js'

let app: TestServer
let venue: VenueProxy

beforeAll(async () => {
  app = await startTestServer()
  venue = await startVenueProxy(app.url)
})
afterAll(async () => {
  await venue?.close()
  await app?.stop()
})

describe('a kiosk on venue Wi-Fi', () => {
  it('when the answer to a registration is lost, then the SDK retries with the same key and the service makes one session', async () => {
    const { sets } = await seedEvent(app.orm)
    venue.network = 'losing answers'
    venue.answersToLose = 1
    venue.reached.length = 0
    const seen = venue.reached
    const kiosk = createClient({ baseUrl: venue.url, retry: { minDelayMs: 1, maxDelayMs: 2 } })
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
