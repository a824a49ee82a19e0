/**
 * Only JSON where JSON is meant (issue 22): a form post needs no CORS preflight, so any website could
 * make its visitors' browsers post to a route that took form bodies. Every change whose body is not
 * text refuses any other media type with 415 before anything reads it, whoever sends it and from
 * wherever; `/track` (a page-close beacon's `text/plain`) takes any.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { countRows, seedEvent, withTestServer } from '../support/harness.js'
import { signedInStaff, type StaffSession } from '../support/staff.js'

const app = withTestServer()
let staff: StaffSession
let setId: string
beforeAll(async () => {
  staff = await signedInStaff(app)
  setId = (await seedEvent(app.orm)).sets[0]!.id
})

type Operation = { requestBody?: { content: Record<string, unknown> } }
const document = JSON.parse(await readFile(resolve(import.meta.dirname, '../../openapi/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>
}
/** Every change of the document, with the media types its body may have. */
const changes = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method !== 'get' && method !== 'head')
    .map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{\w+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA'),
      types: Object.keys(operation.requestBody?.content ?? {}),
    })),
)

const FOREIGN = 'http://evil.example'
const bodies: Record<string, string> = {
  'application/x-www-form-urlencoded': 'guests[0][name]=Form Spam&guests[0][email]=spam@example.org',
  'multipart/form-data; boundary=x': '--x\r\nContent-Disposition: form-data; name="guests[0][name]"\r\n\r\nForm Spam\r\n--x--\r\n',
  'text/plain': '{"guests":[{"name":"Form Spam","email":"spam@example.org"}]}',
}

describe('media types', () => {
  it("when the issue's cross-site form post reaches the kiosk registration, then 415 and no session is made", async () => {
    const before = await countRows(app.orm)
    const response = await fetch(`${app.url}/sets/${setId}/sessions`, {
      method: 'POST',
      headers: { origin: FOREIGN, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'guests[0][name]=Form Spam&guests[0][email]=spam@example.org',
    })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({ error: 'Unsupported Media Type: send application/json', code: 'unsupported_media_type' })
    expect(await countRows(app.orm)).toEqual(before)
  })

  it.each(changes.filter(({ types }) => !types.includes('text/plain')))(
    'when $method $path gets a form, multipart or text body, with or without a foreign Origin or a staff session, then 415 { error } naming its type',
    async ({ method, path, types }) => {
      const accepted = types.length > 0 ? types : ['application/json']
      for (const [type, body] of Object.entries(bodies)) {
        if (accepted.includes(type.split(';')[0]!)) continue
        for (const headers of [{}, { origin: FOREIGN }, staff.headers] as Record<string, string>[]) {
          const response = await fetch(`${app.url}${path}`, { method, headers: { ...headers, 'content-type': type }, body })
          expect(response.status, `${type} ${JSON.stringify(headers)}`).toBe(415)
          expect(await response.json()).toEqual({
            error: `Unsupported Media Type: send ${accepted.join(' or ')}`,
            code: 'unsupported_media_type',
          })
        }
      }
      // A body without a Content-Type is not JSON either.
      const untyped = await fetch(`${app.url}${path}`, { method, headers: staff.headers, body: new Uint8Array(Buffer.from('{}')) })
      expect(untyped.status).toBe(415)
    },
  )

  it('when a change has no body and no Content-Type, then it passes to the route (a bodiless POST)', async () => {
    const response = await fetch(`${app.url}/staff/sessions/AAAAAAAAAAAAAAAAAAAAAA/resend`, { method: 'POST', headers: staff.headers })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  })

  it('when JSON comes with a charset, then it is JSON', async () => {
    const response = await fetch(`${app.url}/sets/${setId}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify({ guests: [{ name: 'Ada Lovelace', email: 'ada.media@example.org' }] }),
    })
    expect(response.status).toBe(201)
  })

  it('when a beacon posts to /track as text/plain or in any other type, then it is read as text, as the spec has it', async () => {
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      const response = await fetch(`${app.url}/track`, { method: 'POST', headers: { 'content-type': type }, body: '{"type":"nonsense"}' })
      expect(response.status, type).toBe(400)
      expect(await response.json()).toEqual({ error: 'bad body', code: 'bad_body' })
    }
  })
})
