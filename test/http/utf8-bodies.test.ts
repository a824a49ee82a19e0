import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { countRows, seedEvent, uniqueSlug, type TestServer } from '../support/harness.js'
import { startStaffTestServer, type StaffSession } from '../support/staff.js'

let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

/** A JSON text with bytes that are not UTF-8 where a string's characters go (a lone surrogate's encoding, then 0xFF). */
const withBadBytes = (before: string, after: string) =>
  Buffer.concat([Buffer.from(before), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from(after)])

const send = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

/**
 * Decoded, each bad sequence would become U+FFFD and be stored: a name other than the one sent.
 * Every route with a text body refuses it, in its own words, and writes nothing (found by review:
 * the kiosk and staff routes stored `a���b`).
 */
describe('a text body whose bytes are not UTF-8', () => {
  it('when a kiosk registers a guest, then 400 and no session', async () => {
    const { sets } = await seedEvent(app.orm)
    const before = await countRows(app.orm)
    const response = await send(`/sets/${sets[0]!.id}/sessions`, withBadBytes('{"guests":[{"name":"a', 'b","email":"a@example.org"}]}'))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'The body is not valid UTF-8', code: 'not_utf8' })
    expect(await countRows(app.orm)).toEqual(before)
  })

  it('when staff create an event, then 400 and no event', async () => {
    const slug = uniqueSlug()
    const response = await send('/staff/events', withBadBytes(`{"slug":"${slug}","name":"a`, 'b","startAt":1}'), staff.headers)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'The body is not valid UTF-8', code: 'not_utf8' })
    const [row] = await app.orm.em.fork().execute<{ count: string }[]>('select count(*) from event where slug = ?', [slug])
    expect(row!.count).toBe('0')
  })

  it('when a beacon or a contact form carries them, then their own 400 texts', async () => {
    const beacon = await send('/track', withBadBytes('{"kind":"view","sessionId":"a', '"}'), { 'content-type': 'text/plain' })
    expect([beacon.status, await beacon.json()]).toEqual([400, { error: 'bad body', code: 'bad_body' }])
    const contact = await send('/contact', withBadBytes('{"fields":{"Name":"a', '"}}'))
    expect([contact.status, await contact.json()]).toEqual([400, { error: 'Invalid submission', code: 'invalid_submission' }])
  })

  it('when a sign-in carries them, then 400 { error }', async () => {
    const response = await send('/api/auth/sign-in/email', withBadBytes('{"email":"a', '@example.org","password":"x"}'), {
      origin: app.url,
    })
    expect([response.status, await response.json()]).toEqual([400, { error: 'The body is not valid UTF-8', code: 'not_utf8' }])
  })
})
