import { randomBytes, randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { resolve } from 'node:path'

import {
  GUESSABLE_KEY,
  INVALID_KEY,
  KEY_STILL_RUNNING,
  KEY_TTL_MS,
  KEY_USED_WITH_ANOTHER_BODY,
  LEASE_MS,
} from '@photobooth/server/modules/idempotency/idempotency.middleware'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, startTestServer, type TestServer, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { signedInStaff, staffFetch } from '../support/staff.js'

const IP_HEADER = 'x-test-client-ip'
let clock = new Date('2026-11-25T09:00:00Z')
const app = withTestServer({ rateLimits: { windowMs: 60_000, clientIpHeader: IP_HEADER } }, { now: () => clock })
let boothKey: string
beforeAll(async () => {
  boothKey = await createTestBoothKey(app)
})

const GUESTS = { guests: [{ name: 'Ada Lovelace', email: 'ada@example.org' }] }
/** A client IP of the test's own: the kiosk's keys are per IP, and so is its rate limit. */
const newIp = () => `10.${[...randomBytes(3)].join('.')}`
const newKey = () => randomUUID()

function register(setId: string, options: { key?: string; ip: string; body?: unknown }) {
  return fetch(`${app.url}/sets/${setId}/sessions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [IP_HEADER]: options.ip,
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
    },
    body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body ?? GUESTS),
  })
}

function boothPost(path: string, body: unknown, options: { key?: string; bearer?: string; server?: TestServer } = {}) {
  return fetch(`${(options.server ?? app).url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${options.bearer ?? boothKey}`,
      ...(options.key === undefined ? {} : { 'idempotency-key': options.key }),
    },
    body: JSON.stringify(body),
  })
}

/** Status, replay header and body text of an answer. */
async function answer(response: Response) {
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: await response.text() }
}

async function newSet() {
  const { sets } = await seedEvent(app.orm)
  return sets[0]!.id
}

async function sessionsIn(setId: string): Promise<number> {
  const [row] = await app.orm.em.fork().execute<{ count: number }[]>('select count(*)::int as count from session where set_id = ?', [setId])
  return row!.count
}

async function keyRows(key: string) {
  return app.orm.em
    .fork()
    .execute<{ scope: string; state: string; status: number | null }[]>(
      'select scope, state, status from idempotency_key where key = ? order by scope',
      [key],
    )
}

/** An active session at a new set, its photos uploaded and ready to complete. */
async function readyToComplete() {
  const setId = await newSet()
  const session = (await (await register(setId, { ip: newIp() })).json()) as { id: string }
  const { uploads } = (await (await boothPost(`/booth/sessions/${session.id}/uploads`, { count: 1 })).json()) as {
    uploads: { key: string; url: string; headers: Record<string, string> }[]
  }
  for (const target of uploads)
    expect((await fetch(target.url, { method: 'PUT', headers: target.headers, body: makeJpeg(16, 12) })).status).toBe(200)
  return { sessionId: session.id, photos: uploads.map((target) => target.key) }
}

describe('Idempotency-Key on registration', () => {
  it('when a registration is sent twice with one key, then one session is created and the second answer is the first, replayed', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    const first = await answer(await register(setId, { key, ip }))
    expect(first).toMatchObject({ status: 201, replayed: null })
    const second = await answer(await register(setId, { key, ip }))
    expect(second).toEqual({ ...first, replayed: 'true' })
    expect(await sessionsIn(setId)).toBe(1)
    expect(await keyRows(key)).toEqual([{ scope: expect.stringMatching(/^kiosk:POST \/sets\//), state: 'done', status: 201 }])
  })

  it('when the client drops the connection before reading the answer, then its retry gets the answer and no second session', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    const body = JSON.stringify(GUESTS)
    const claimed = app.sent(/insert into idempotency_key/, 1)
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1')
    socket.on('error', () => {})
    socket.write(
      `POST /sets/${setId}/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${IP_HEADER}: ${ip}\r\n` +
        `Idempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
    await claimed
    socket.destroy()
    const retry = await answer(await register(setId, { key, ip }))
    expect(retry.status).toBe(201)
    expect(retry.replayed).toBe('true')
    expect(await sessionsIn(setId)).toBe(1)
    const [session] = await app.orm.em.fork().execute<{ id: string }[]>('select id from session where set_id = ?', [setId])
    expect(JSON.parse(retry.body)).toMatchObject({ id: session!.id, status: 'active' })
  })

  it('when the same key comes with another body, then 422 and nothing is written', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    expect((await register(setId, { key, ip })).status).toBe(201)
    const other = await register(setId, { key, ip, body: { guests: [{ name: 'Grace Hopper', email: 'grace@example.org' }] } })
    expect(await answer(other)).toEqual({ status: 422, replayed: null, body: JSON.stringify(KEY_USED_WITH_ANOTHER_BODY) })
    expect(await sessionsIn(setId)).toBe(1)
  })

  it('when the same body is serialised with its keys in another order, then it is the same request', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    expect((await register(setId, { key, ip, body: '{"guests":[{"name":"Ada Lovelace","email":"ada@example.org"}]}' })).status).toBe(201)
    const again = await register(setId, { key, ip, body: '{ "guests": [{ "email": "ada@example.org", "name": "Ada Lovelace" }] }' })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await sessionsIn(setId)).toBe(1)
  })

  it("when the same key comes for another set, then it is that set's own request: it acts there, and nothing of the first set's answer is replayed", async () => {
    const [setA, setB] = [await newSet(), await newSet()]
    const ip = newIp()
    const key = newKey()
    const first = await answer(await register(setA, { key, ip }))
    const other = await answer(await register(setB, { key, ip }))
    expect(other).toMatchObject({ status: 201, replayed: null })
    expect(other.body).not.toBe(first.body)
    expect([await sessionsIn(setA), await sessionsIn(setB)]).toEqual([1, 1])
  })

  it('when 10 requests with one key arrive at once, then one acts, the nine others wait for its answer and replay it', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    const answers = await Promise.all(Array.from({ length: 10 }, async () => answer(await register(setId, { key, ip }))))
    expect(answers.map((each) => each.status)).toEqual(Array(10).fill(201))
    expect(answers.filter((each) => each.replayed === null)).toHaveLength(1)
    expect(answers.filter((each) => each.replayed === 'true')).toHaveLength(9)
    expect(new Set(answers.map((each) => each.body)).size).toBe(1)
    expect(await sessionsIn(setId)).toBe(1)
  })

  it('when no key is sent, then every request acts, as before', async () => {
    const setId = await newSet()
    const ip = newIp()
    const [first, second] = [await register(setId, { ip }), await register(setId, { ip })]
    expect([first.status, second.status]).toEqual([201, 201])
    expect([first.headers.get('idempotent-replayed'), second.headers.get('idempotent-replayed')]).toEqual([null, null])
    expect(await sessionsIn(setId)).toBe(2)
  })

  it("when a kiosk's retry leaves from another network (another client IP) with its key, then it is replayed: one session", async () => {
    const setId = await newSet()
    const key = newKey()
    const first = await answer(await register(setId, { key, ip: newIp() }))
    const overLte = await answer(await register(setId, { key, ip: newIp() }))
    expect(first).toMatchObject({ status: 201, replayed: null })
    expect(overLte).toEqual({ ...first, replayed: 'true' })
    expect(await sessionsIn(setId)).toBe(1)
    expect(await keyRows(key)).toHaveLength(1)
  })

  it("when a kiosk sends a key that could be guessed (short, or few distinct characters), then 400 and nothing is written; booth and staff keys are their callers' own and may be short", async () => {
    const setId = await newSet()
    for (const key of ['1', 'retry-1', 'aaaaaaaaaaaaaaaaaaaaaaaa', '1212121212121212']) {
      expect(await answer(await register(setId, { key, ip: newIp() })), key).toEqual({
        status: 400,
        replayed: null,
        body: JSON.stringify(GUESSABLE_KEY),
      })
    }
    expect(await sessionsIn(setId)).toBe(0)
    const session = (await (await register(setId, { ip: newIp() })).json()) as { id: string }
    expect((await boothPost(`/booth/sessions/${session.id}/uploads`, { count: 1 }, { key: 'u1' })).status).toBe(200)
  })

  it('when the body does not parse, then 400 as without a key, and the key stays unused', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    const broken = await register(setId, { key, ip, body: '{"guests":' })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toEqual({ error: expect.any(String), code: 'malformed_request' })
    expect(await keyRows(key)).toEqual([])
    // Nested too deep to fingerprint (JSON.parse takes it, JSON.stringify does not): answered as without a key.
    const deep = await register(setId, { key: newKey(), ip, body: `${'['.repeat(30_000)}${']'.repeat(30_000)}` })
    expect(deep.status).toBe(400)
    expect(await answer(await register(setId, { key, ip }))).toMatchObject({ status: 201, replayed: null })
    expect(await keyRows(key)).toEqual([{ scope: expect.stringMatching(/^kiosk:POST \/sets\//), state: 'done', status: 201 }])
  })

  it('when the key is not 1 to 255 visible ASCII characters, then 400 and nothing is written', async () => {
    const setId = await newSet()
    const ip = newIp()
    for (const key of ['', 'a'.repeat(256), 'two words', 'caf\u00e9', 'tab\there']) {
      const response = await register(setId, { key, ip })
      expect(await answer(response), JSON.stringify(key)).toEqual({ status: 400, replayed: null, body: JSON.stringify(INVALID_KEY) })
    }
    // Two keys in two headers are joined by Node into one value that is no key.
    const headers = new Headers({ 'content-type': 'application/json', [IP_HEADER]: ip })
    headers.append('idempotency-key', 'one')
    headers.append('idempotency-key', 'two')
    const doubled = await fetch(`${app.url}/sets/${setId}/sessions`, { method: 'POST', headers, body: JSON.stringify(GUESTS) })
    expect(doubled.status).toBe(400)
    expect(await sessionsIn(setId)).toBe(0)
    expect((await register(setId, { key: `${randomUUID()}${'a'.repeat(219)}`, ip })).status).toBe(201)
  })
})

describe('Idempotency-Key on the booth routes', () => {
  it('when a completion is retried with its key, then it replays 200 instead of 409', async () => {
    const { sessionId, photos } = await readyToComplete()
    const key = newKey()
    const first = await answer(await boothPost(`/booth/sessions/${sessionId}/complete`, { photos }, { key }))
    expect(first).toMatchObject({ status: 200, replayed: null })
    const retry = await answer(await boothPost(`/booth/sessions/${sessionId}/complete`, { photos }, { key }))
    expect(retry).toEqual({ ...first, replayed: 'true' })
    const [row] = await app.orm.em
      .fork()
      .execute<{ messages: number }[]>('select count(*)::int as messages from outbox_message where session_id = ?', [sessionId])
    expect(row!.messages).toBe(1)
  })

  it('when a completion is sent again without a key, then 409, as the spec says', async () => {
    const { sessionId, photos } = await readyToComplete()
    expect((await boothPost(`/booth/sessions/${sessionId}/complete`, { photos })).status).toBe(200)
    const again = await boothPost(`/booth/sessions/${sessionId}/complete`, { photos })
    expect(again.status).toBe(409)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
  })

  it('when two booth keys use the same key, then each has its own: both act', async () => {
    const { sessionId } = await readyToComplete()
    const otherBooth = await createTestBoothKey(app, 'Other booth')
    const key = newKey()
    const mine = await answer(await boothPost(`/booth/sessions/${sessionId}/uploads`, { count: 1 }, { key }))
    const theirs = await answer(await boothPost(`/booth/sessions/${sessionId}/uploads`, { count: 1 }, { key, bearer: otherBooth }))
    expect([mine.status, mine.replayed, theirs.status, theirs.replayed]).toEqual([200, null, 200, null])
    expect(mine.body).not.toEqual(theirs.body)
    expect((await keyRows(key)).map((row) => row.scope.split(':')[0])).toEqual(['booth', 'booth'])
  })

  it('when the answer is a 5xx, then it is not stored and a retry runs again', async () => {
    const bare = await startTestServer({ storage: { kind: 'none' } })
    try {
      const bareKey = await createTestBoothKey(bare)
      const { sets } = await seedEvent(bare.orm)
      const session = (await (
        await fetch(`${bare.url}/sets/${sets[0]!.id}/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(GUESTS),
        })
      ).json()) as { id: string }
      const key = newKey()
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await boothPost(`/booth/sessions/${session.id}/uploads`, { count: 1 }, { key, bearer: bareKey, server: bare })
        expect(await answer(response)).toMatchObject({ status: 503, replayed: null })
        expect(await bare.orm.em.fork().execute('select 1 from idempotency_key where key = ?', [key])).toEqual([])
      }
    } finally {
      await bare.stop()
    }
  })
})

describe('Idempotency-Key on the staff routes', () => {
  it('when a staff change is retried, then it is replayed; another member may use the same key for their own', async () => {
    const [owner, other] = [await signedInStaff(app, 'Owner'), await signedInStaff(app, 'Other')]
    const key = newKey()
    const slug = `event-${randomBytes(5).toString('hex')}`
    const create = (session: typeof owner, eventSlug: string) =>
      staffFetch(app, session, '/staff/events', {
        method: 'POST',
        body: { slug: eventSlug, name: 'Gala', startAt: 1_790_000_000_000 },
        headers: { 'idempotency-key': key },
      })
    const first = await answer(await create(owner, slug))
    expect(first).toMatchObject({ status: 201, replayed: null })
    const retry = await create(owner, slug)
    expect(retry.headers.get('cache-control')).toBe('private, no-store')
    expect(await answer(retry)).toEqual({ ...first, replayed: 'true' })
    const [row] = await app.orm.em.fork().execute<{ count: number }[]>('select count(*)::int as count from event where slug = ?', [slug])
    expect(row!.count).toBe(1)
    expect(await answer(await create(other, `${slug}-2`))).toMatchObject({ status: 201, replayed: null })
  })
})

describe('Idempotency-Key while the first request runs, and over time', () => {
  /** The key's row as if its first request were still running, in another instance (nothing here wakes a waiter). */
  const markRunning = (key: string, lockedUntil: Date) =>
    app.orm.em
      .fork()
      .execute(
        `update idempotency_key set state = 'running', status = null, content_type = null, body = null, locked_until = ? where key = ?`,
        [lockedUntil, key],
      )

  it('when a retry arrives while the first is running elsewhere, then it waits and replays its answer once stored', async () => {
    const setId = await newSet()
    const ip = newIp()
    const key = newKey()
    expect((await register(setId, { key, ip })).status).toBe(201)
    await markRunning(key, new Date(clock.getTime() + LEASE_MS))
    const polled = app.sent(/^select request, body_hash/, 3)
    const retry = register(setId, { key, ip })
    await polled
    await app.orm.em
      .fork()
      .execute(`update idempotency_key set state = 'done', status = 201, content_type = 'application/json', body = ? where key = ?`, [
        Buffer.from('{"stored":true}'),
        key,
      ])
    expect(await answer(await retry)).toEqual({ status: 201, replayed: 'true', body: '{"stored":true}' })
    expect(await sessionsIn(setId)).toBe(1)
  })

  it(
    'when the first is still running after 10 s, then 409; once its lease has passed, a retry runs again',
    { timeout: 30_000 },
    async () => {
      const setId = await newSet()
      const ip = newIp()
      const key = newKey()
      expect((await register(setId, { key, ip })).status).toBe(201)
      await markRunning(key, new Date(clock.getTime() + LEASE_MS))
      expect(await answer(await register(setId, { key, ip }))).toEqual({
        status: 409,
        replayed: null,
        body: JSON.stringify(KEY_STILL_RUNNING),
      })
      expect(await sessionsIn(setId)).toBe(1)
      // Its process died: the lease runs out and the same request runs again (another one still may not).
      clock = new Date(clock.getTime() + LEASE_MS)
      expect((await register(setId, { key, ip, body: { guests: [{ name: 'Someone Else', phone: '+14155552671' }] } })).status).toBe(422)
      expect(await answer(await register(setId, { key, ip }))).toMatchObject({ status: 201, replayed: null })
      expect(await sessionsIn(setId)).toBe(2)
    },
  )

  it('when 24 hours have passed, then the key acts again, and expired keys are pruned', async () => {
    const setId = await newSet()
    const ip = newIp()
    const [key, otherKey] = [newKey(), newKey()]
    expect((await register(setId, { key, ip })).status).toBe(201)
    expect((await register(setId, { key: otherKey, ip })).status).toBe(201)
    const start = clock.getTime()
    // A keyed request an hour or more after the last prune prunes first: nothing of these has expired yet.
    clock = new Date(start + KEY_TTL_MS - 1)
    expect((await register(setId, { key, ip })).headers.get('idempotent-replayed')).toBe('true')
    expect(await sessionsIn(setId)).toBe(2)
    expect(await keyRows(otherKey)).toHaveLength(1)
    // Expired: ignored, and replaced by the new claim; the other expired row waits for the next prune.
    clock = new Date(start + KEY_TTL_MS)
    expect(await answer(await register(setId, { key, ip }))).toMatchObject({ status: 201, replayed: null })
    expect(await sessionsIn(setId)).toBe(3)
    expect(await keyRows(otherKey)).toHaveLength(1)
    // An hour later the next keyed request prunes it; the renewed key still replays.
    clock = new Date(start + KEY_TTL_MS + 60 * 60 * 1000)
    expect((await register(setId, { key, ip })).headers.get('idempotent-replayed')).toBe('true')
    expect(await keyRows(otherKey)).toEqual([])
    expect(await keyRows(key)).toEqual([{ scope: expect.stringMatching(/^kiosk:POST \/sets\//), state: 'done', status: 201 }])
    expect(await sessionsIn(setId)).toBe(3)
  })
})

describe('expired keys at start', () => {
  it('when a server starts, then it deletes the keys that expired while none ran, and no other', async () => {
    const [expired, live] = [newKey(), newKey()]
    const at = new Date()
    for (const [key, expiresAt] of [
      [expired, new Date(at.getTime() - 1)],
      [live, new Date(at.getTime() + KEY_TTL_MS)],
    ] as const) {
      await app.orm.em.fork().execute(
        `insert into idempotency_key (scope, key, owner, request, body_hash, state, status, created_at, expires_at, locked_until)
         values ('ip:test', ?, 'owner', 'POST /sets/x/sessions', 'hash', 'done', 201, ?, ?, ?)`,
        [key, at, expiresAt, at],
      )
    }
    const other = await startTestServer()
    await other.stop()
    expect(await keyRows(expired)).toEqual([])
    expect(await keyRows(live)).toEqual([{ scope: 'ip:test', state: 'done', status: 201 }])
  })
})

describe('the OpenAPI document', () => {
  it('when a session is deleted, then the stored answers that name it are forgotten: a retry is told it is gone, and nothing of its guests comes back', async () => {
    const staff = await signedInStaff(app)
    const { sets } = await seedEvent(app.orm)
    const registered = await fetch(`${app.url}/sets/${sets[0]!.id}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `erase-register-${staff.memberId}` },
      body: JSON.stringify({ guests: [{ name: 'Erase Me', email: 'erase.me@example.org', phone: '(312) 555-0142' }] }),
    })
    const { id } = (await registered.json()) as { id: string }
    const cancel = () =>
      staffFetch(app, staff, `/staff/sessions/${id}/cancel`, {
        method: 'POST',
        headers: { 'idempotency-key': `erase-cancel-${staff.memberId}` },
      })
    expect((await cancel()).status).toBe(200)
    const stored = () =>
      app.orm.em.fork().execute<{ key: string }[]>(`select key from idempotency_key where convert_from(body, 'UTF8') like ?`, [`%${id}%`])
    expect(await stored()).toHaveLength(2)
    expect((await staffFetch(app, staff, `/staff/sessions/${id}`, { method: 'DELETE' })).status).toBe(200)
    expect(await stored()).toEqual([])
    // The retry of the cancel is told what it made is gone: it does not act again, and nothing of the guests comes back.
    const retried = await cancel()
    expect([retried.status, retried.headers.get('idempotent-replayed'), await retried.json()]).toEqual([
      410,
      'true',
      {
        error: 'What this request made has been deleted since (by staff, the retention purge or a guest’s request): it is not made again',
        code: 'gone',
      },
    ])
  })

  it('when a registration is refused (a phone that is not one), then its answer is not stored: what the guest typed is not kept, and the retry runs again', async () => {
    const { sets } = await seedEvent(app.orm)
    const key = `refused-${randomUUID()}`
    const register = () =>
      fetch(`${app.url}/sets/${sets[0]!.id}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ guests: [{ name: 'Typo Tina', phone: '555-CALL-TINA' }] }),
      })
    const first = await register()
    expect(first.status).toBe(400)
    expect(await keyRows(key)).toEqual([])
    const again = await register()
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([400, null])
  })

  it('when an answer holds a secret shown once (a booth key, a one-time password), then it is never stored and a key does not replay it', async () => {
    const staff = await signedInStaff(app)
    const create = (path: string, body: unknown) =>
      staffFetch(app, staff, path, { method: 'POST', body, headers: { 'idempotency-key': `secret-${path}-${staff.memberId}` } })
    const [first, second] = [
      await create('/staff/booth-keys', { name: 'Secret booth' }),
      await create('/staff/booth-keys', { name: 'Secret booth' }),
    ]
    expect([first.status, second.status, first.headers.get('idempotent-replayed'), second.headers.get('idempotent-replayed')]).toEqual([
      201,
      201,
      null,
      null,
    ])
    const keys = [((await first.json()) as { key: string }).key, ((await second.json()) as { key: string }).key]
    expect(keys[0]).not.toBe(keys[1])
    const invited = await create('/staff/members', { email: `secret-${staff.memberId}@example.org`.toLowerCase(), name: 'Invitee' })
    const { password } = (await invited.json()) as { password: string }
    const stored = await app.orm.em
      .fork()
      .execute<{ body: string }[]>(`select convert_from(body, 'UTF8') as body from idempotency_key where key like 'secret-%'`)
    expect(stored).toEqual([])
    expect(JSON.stringify(stored)).not.toContain(password)
  })

  it('when read, then every change of the kiosk, booth and staff takes Idempotency-Key, and no other operation does; each lists the 409, 410 and 422 a key can answer', async () => {
    const document = JSON.parse(await readFile(resolve(import.meta.dirname, '../../openapi/openapi.json'), 'utf8'))
    const keyed: string[] = []
    for (const [path, item] of Object.entries<
      Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, { headers?: object }> }>
    >(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!(operation.parameters ?? []).some((parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey')) continue
        keyed.push(`${method.toUpperCase()} ${path}`)
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '410', '422']))
        // A replay whose session was deleted since is told so (FORGET_SESSIONS): the document says it can be.
        expect(JSON.stringify(operation.responses['410'])).toContain('"enum":["gone"]')
        const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))![1]
        expect(success.headers).toEqual({
          'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
          'X-Request-Id': { $ref: '#/components/headers/RequestId' },
        })
      }
    }
    expect(keyed).toContain('POST /sets/{setId}/sessions')
    expect(keyed).toContain('POST /booth/sessions/{sessionId}/complete')
    expect(keyed).toContain('DELETE /staff/sessions/{sessionId}')
    expect(keyed.every((route) => /^(POST|PATCH|DELETE) \/(sets|booth|staff)\//.test(route))).toBe(true)
    expect(keyed.filter((route) => /track|contact|api\/auth|^GET/.test(route))).toEqual([])
    // Their answers hold a secret shown once: never stored, so never keyed.
    expect(keyed).not.toContain('POST /staff/booth-keys')
    expect(keyed).not.toContain('POST /staff/members')
    expect(document.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false })
  })
})
