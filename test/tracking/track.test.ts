import type { ErrorCode } from '@photobooth/sdk/contract'
import { beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { seedEvent, seedSession, withTestServer } from '../support/harness.js'

const app = withTestServer({ rateLimits: { windowMs: 60_000, clientIpHeader: 'x-test-client-ip' } })
let gallery: LiveGallery
let eventId: string
beforeAll(async () => {
  gallery = await makeLiveGallery(app)
  const [row] = await app.orm.em
    .fork()
    .execute<{ event_id: string }[]>('select st.event_id from session s join event_set st on st.id = s.set_id where s.id = ?', [
      gallery.sessionId,
    ])
  eventId = row!.event_id
})

let clients = 0
/** A beacon as navigator.sendBeacon sends a string: text/plain, from a client of its own. */
const beacon = (body: string, contentType: string | null = 'text/plain;charset=UTF-8') =>
  fetch(`${app.url}/track`, {
    method: 'POST',
    body,
    headers: {
      ...(contentType ? { 'content-type': contentType } : {}),
      'x-test-client-ip': `10.1.${(++clients >> 8) & 255}.${clients & 255}`,
    },
  })

async function rows() {
  return app.orm.em
    .fork()
    .execute<{ kind: string; channel: string | null; event_id: string; session_id: string | null }[]>(
      'select kind, channel, event_id, session_id from tracking_event where event_id = ? order by id',
      [eventId],
    )
}

async function expectError(response: Response, error: string, code: ErrorCode) {
  expect(response.status).toBe(400)
  expect(await response.json()).toEqual({ error, code })
}

describe('POST /track', () => {
  it('when a gallery view arrives as a text/plain beacon, then 204 with no body and one row without the visitor', async () => {
    const before = (await rows()).length
    const response = await beacon(JSON.stringify({ kind: 'view', sessionId: gallery.sessionId }))
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    expect((await rows()).slice(before)).toEqual([{ kind: 'view', channel: null, event_id: eventId, session_id: gallery.sessionId }])
  })

  it('when an event view arrives as application/json, then it is counted too', async () => {
    const before = (await rows()).length
    expect((await beacon(JSON.stringify({ kind: 'view', eventId }), 'application/json')).status).toBe(204)
    expect((await rows()).slice(before)).toEqual([{ kind: 'view', channel: null, event_id: eventId, session_id: null }])
  })

  it('when a share click arrives with its channel, then the channel is counted', async () => {
    const before = (await rows()).length
    for (const channel of ['facebook', 'instagram', 'tiktok', 'copy', 'native']) {
      expect((await beacon(JSON.stringify({ kind: 'share', sessionId: gallery.sessionId, channel }))).status).toBe(204)
    }
    expect((await rows()).slice(before).map((row) => row.channel)).toEqual(['facebook', 'instagram', 'tiktok', 'copy', 'native'])
  })

  it('when a beacon has no content type, then it is read as JSON text all the same', async () => {
    expect((await beacon(JSON.stringify({ kind: 'view', eventId }), null)).status).toBe(204)
  })

  for (const [label, body] of [
    ['both ids', JSON.stringify({ kind: 'view', sessionId: 'a', eventId: 'b' })],
    ['neither id', JSON.stringify({ kind: 'view' })],
    ['a share without channel', JSON.stringify({ kind: 'share', sessionId: 'a' })],
    ['a share with an unknown channel', JSON.stringify({ kind: 'share', sessionId: 'a', channel: 'myspace' })],
    ['a share of an event', JSON.stringify({ kind: 'share', eventId: 'a', channel: 'copy' })],
    ['an unknown kind', JSON.stringify({ kind: 'download', sessionId: 'a' })],
    ['an extra field', JSON.stringify({ kind: 'view', sessionId: 'a', ip: '1.2.3.4' })],
    ['a number id', JSON.stringify({ kind: 'view', sessionId: 42 })],
    ['an array', '[]'],
    ['malformed JSON', '{"kind": "view",'],
    ['an empty body', ''],
    ['a 5 KB body', JSON.stringify({ kind: 'view', sessionId: 'a'.repeat(5000) })],
  ] as const) {
    it(`when the body is ${label}, then 400 "bad body" and nothing is counted`, async () => {
      const before = (await rows()).length
      await expectError(await beacon(body), 'bad body', 'bad_body')
      expect((await rows()).length).toBe(before)
    })
  }

  it('when the id names no countable session or event, then 400 "no such session or event"', async () => {
    const { event, sets } = await seedEvent(app.orm, { isPrivate: true })
    const active = await seedSession(app.orm, sets[0]!.id, { status: 'active' })
    const cancelled = await seedSession(app.orm, sets[0]!.id, { status: 'cancelled' })
    for (const body of [
      { kind: 'view', sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' },
      { kind: 'view', sessionId: active.id },
      { kind: 'share', sessionId: cancelled.id, channel: 'copy' },
      { kind: 'view', eventId: 'AAAAAAAAAAAAAAAAAAAAAA' },
      { kind: 'view', eventId: event.id },
    ]) {
      await expectError(await beacon(JSON.stringify(body)), 'no such session or event', 'no_such_target')
    }
  })

  it('when the table is read, then it has no column about the visitor', async () => {
    const columns = await app.orm.em
      .fork()
      .execute<{ column_name: string }[]>(
        `select column_name from information_schema.columns where table_name = 'tracking_event' order by ordinal_position`,
      )
    expect(columns.map((c) => c.column_name)).toEqual(['id', 'kind', 'channel', 'event_id', 'session_id', 'created_at'])
  })
})
