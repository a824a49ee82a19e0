import { createClient, isDefinedError, safe, type PhotoBoothClient } from '@photobooth/sdk'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, postJson, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'

const app = withTestServer()
let booth: PhotoBoothClient
let kiosk: PhotoBoothClient
let boothKey: string
beforeAll(async () => {
  boothKey = await createTestBoothKey(app)
  booth = createClient({ baseUrl: app.url, boothKey })
  kiosk = createClient({ baseUrl: app.url })
})

/** An active session of the given guests (two by default: one email, one phone). */
type Guest = { name: string; email?: string; phone?: string }
async function activeSession(
  guests: Guest[] = [
    { name: 'Ada', email: 'ada@example.org' },
    { name: 'Bob', phone: '+1 415 555 2671' },
  ],
) {
  const { sets } = await seedEvent(app.orm)
  return kiosk.kiosk.registerGuests({ params: { setId: sets[0]!.id }, body: { guests } })
}

/** Upload targets for the session, of which the first `uploaded` get real JPEG bytes. */
async function upload(sessionId: string, count: number, uploaded = count) {
  const { uploads } = await booth.booth.createUploads({ params: { sessionId }, body: { count } })
  for (const target of uploads.slice(0, uploaded)) {
    const response = await fetch(target.url, { method: 'PUT', headers: target.headers, body: makeJpeg(16, 12) })
    expect(response.status).toBe(200)
  }
  return uploads.map((target) => target.key)
}

async function stateOf(sessionId: string) {
  const [row] = await app.orm.em.fork().execute<{ status: string; photo_count: number; photos: string; messages: string }[]>(
    `select status, photo_count, (select count(*) from photo where session_id = s.id) as photos,
            (select count(*) from outbox_message where session_id = s.id) as messages
       from session s where id = ?`,
    [sessionId],
  )
  return { status: row!.status, photoCount: row!.photo_count, photos: Number(row!.photos), messages: Number(row!.messages) }
}

const complete = (sessionId: string, photos: string[]) =>
  postJson(
    `${app.url}/booth/sessions/${sessionId}/complete`,
    { photos },
    { headers: { 'content-type': 'application/json', authorization: `Bearer ${boothKey}` } },
  )

describe('POST /booth/sessions/:id/complete', () => {
  it('when some keys are not in storage, then 422 lists exactly those and nothing is written', async () => {
    const session = await activeSession()
    const keys = await upload(session.id, 4, 2)
    const response = await complete(session.id, keys)
    expect(response.status).toBe(422)
    expect(await response.json()).toEqual({ error: 'Photo keys not in storage', missing: [keys[2], keys[3]], code: 'photo_keys_missing' })
    expect(await stateOf(session.id)).toEqual({ status: 'active', photoCount: 0, photos: 0, messages: 0 })
  })

  it('when the SDK meets a 422, then the missing keys come back as typed data', async () => {
    const session = await activeSession()
    const keys = await upload(session.id, 2, 1)
    const [error] = await safe(booth.booth.complete({ params: { sessionId: session.id }, body: { photos: keys } }))
    if (!isDefinedError(error) || error.code !== 'UNPROCESSABLE_CONTENT') throw new Error('expected a 422')
    expect(error.data).toEqual({ missing: [keys[1]], code: 'photo_keys_missing' })
  })

  it('when a stored object is not a JPEG, then 422 names it and nothing is written', async () => {
    const session = await activeSession()
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } })
    await fetch(uploads[0]!.url, { method: 'PUT', headers: uploads[0]!.headers, body: Buffer.from('GIF89a not a jpeg') })
    const response = await complete(session.id, [uploads[0]!.key])
    expect(response.status).toBe(422)
    expect(await response.json()).toEqual({
      error: 'Uploads that are not JPEG images',
      notJpeg: [uploads[0]!.key],
      code: 'photos_not_jpeg',
    })
    expect((await stateOf(session.id)).status).toBe('active')
  })

  it("when a key lies outside the session's prefix, then 400 and nothing is written", async () => {
    const session = await activeSession()
    const other = await activeSession()
    const foreign = (await upload(other.id, 1))[0]!
    const response = await complete(session.id, [foreign, `sessions/${session.id}/../${other.id}/x.jpg`])
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/^Photo keys outside this session: /)
    expect(await stateOf(session.id)).toEqual({ status: 'active', photoCount: 0, photos: 0, messages: 0 })
  })

  it('when a key is given twice, then 400 and nothing is written', async () => {
    const session = await activeSession()
    const [key] = await upload(session.id, 1)
    const response = await complete(session.id, [key!, key!])
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: `Photo keys given more than once: ${key}`, code: 'photo_keys_repeated' })
    expect((await stateOf(session.id)).status).toBe('active')
  })

  it('when more than 60 keys are given, then 400 in the validator shape', async () => {
    const session = await activeSession()
    const keys = Array.from({ length: 61 }, (_, i) => `sessions/${session.id}/p${i}.jpg`)
    const response = await complete(session.id, keys)
    expect(response.status).toBe(400)
    expect(JSON.parse((await response.json()).error.message)).toEqual([expect.objectContaining({ code: 'too_big', path: ['photos'] })])
  })

  it('when a session completes without photos, then it is completed, no link is queued and no gallery is live', async () => {
    const session = await activeSession()
    const response = await complete(session.id, [])
    expect(response.status).toBe(200)
    expect(await stateOf(session.id)).toEqual({ status: 'completed', photoCount: 0, photos: 0, messages: 0 })
    expect((await fetch(`${app.url}/gallery/${session.id}`)).status).toBe(404)
  })

  it('when a guest shares a placeholder email with another, then each guest still gets a message per channel', async () => {
    const session = await activeSession([
      { name: 'Ann', email: 'family@example.org', phone: '+1 415 555 0101' },
      { name: 'Ben', email: 'family@example.org' },
    ])
    const keys = await upload(session.id, 1)
    expect((await complete(session.id, keys)).status).toBe(200)
    expect((await stateOf(session.id)).messages).toBe(3)
  })

  it('when the session is unknown, then 404 "no such session"', async () => {
    const response = await complete('AAAAAAAAAAAAAAAAAAAAAA', [])
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  })

  it('when the session is completed or cancelled already, then completing or cancelling again answers 409', async () => {
    const done = await activeSession()
    expect((await complete(done.id, await upload(done.id, 1))).status).toBe(200)
    const cancelled = await activeSession()
    await booth.booth.cancel({ params: { sessionId: cancelled.id } })

    for (const session of [done, cancelled]) {
      const again = await complete(session.id, [])
      expect(again.status).toBe(409)
      expect(await again.json()).toEqual({
        error: expect.stringMatching(/^session is already (completed|cancelled)$/),
        code: 'session_not_active',
      })
      const [error] = await safe(booth.booth.cancel({ params: { sessionId: session.id } }))
      expect(isDefinedError(error) && error.code).toBe('CONFLICT')
    }
    expect(await stateOf(done.id)).toMatchObject({ status: 'completed', photos: 1, messages: 2 })
  })

  it('when 50 completes of one session race, then exactly one succeeds, 49 answer 409, and each guest gets one link per channel', async () => {
    const session = await activeSession()
    const keys = await upload(session.id, 3)
    const responses = await Promise.all(Array.from({ length: 50 }, () => complete(session.id, keys)))
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    expect(statuses.filter((status) => status === 409)).toHaveLength(49)
    expect(await stateOf(session.id)).toEqual({ status: 'completed', photoCount: 3, photos: 3, messages: 2 })
  })
})

describe('uploads and cancel', () => {
  it('when uploads are asked for a session that is no longer active, then 409', async () => {
    const session = await activeSession()
    await booth.booth.cancel({ params: { sessionId: session.id } })
    const [error] = await safe(booth.booth.createUploads({ params: { sessionId: session.id }, body: { count: 1 } }))
    expect(isDefinedError(error) && error.code).toBe('CONFLICT')
  })

  it('when a session is cancelled, then it leaves the queue and its gallery stays 404', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await kiosk.kiosk.registerGuests({
      params: { setId: sets[0]!.id },
      body: { guests: [{ name: 'Cy', email: 'cy@example.org' }] },
    })
    expect(await booth.booth.cancel({ params: { sessionId: session.id } })).toEqual({ id: session.id, status: 'cancelled' })
    expect((await booth.booth.listQueue({ setId: sets[0]!.id })).sessions).toEqual([])
    expect((await fetch(`${app.url}/gallery/${session.id}`)).status).toBe(404)
  })

  it('when the set of a queue is unknown, then 404 "no such set"', async () => {
    const [error] = await safe(booth.booth.listQueue({ setId: 'AAAAAAAAAAAAAAAAAAAAAA' }))
    expect(isDefinedError(error) && error.message).toBe('no such set')
  })

  it('when 0 or 61 upload targets are asked for, then 400', async () => {
    const session = await activeSession()
    for (const count of [0, 61]) {
      const [error] = await safe(booth.booth.createUploads({ params: { sessionId: session.id }, body: { count } }))
      expect(isDefinedError(error) && error.code).toBe('BAD_REQUEST')
    }
  })
})
