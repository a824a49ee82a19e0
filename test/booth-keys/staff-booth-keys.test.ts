import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type TestServer } from '../support/harness.js'
import { startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'

let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

const createKey = (body: unknown) => staffFetch(app, staff, '/staff/booth-keys', { method: 'POST', body })
const revokeKey = (keyId: string) => staffFetch(app, staff, `/staff/booth-keys/${keyId}/revoke`, { method: 'POST' })
const listKeys = async () => (await (await staffFetch(app, staff, '/staff/booth-keys')).json()).keys
const boothEvents = (key: string) => fetch(`${app.url}/booth/events`, { headers: { authorization: `Bearer ${key}` } })

async function keyRows(): Promise<number> {
  const [row] = await app.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from booth_key')
  return row!.n
}

describe('POST /staff/booth-keys', () => {
  it('when a key is created, then 201 with the whole key once, and the key opens the booth API', async () => {
    const before = Date.now()
    const response = await createKey({ name: '  Mirror booth 1 ' })
    expect(response.status).toBe(201)
    const created = await response.json()
    expect(created).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{12}$/),
      name: 'Mirror booth 1',
      createdAt: expect.any(Number),
      lastUsedAt: null,
      revokedAt: null,
      // Made by an owner without events: a key for every event (test/booth/scoped-keys.test.ts has the others).
      eventIds: null,
      unscoped: true,
      key: expect.stringMatching(/^pbk_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/),
    })
    expect(created.key.startsWith(`pbk_${created.id}_`)).toBe(true)
    expect(created.createdAt).toBeGreaterThanOrEqual(before)
    expect(created.createdAt).toBeLessThanOrEqual(Date.now())

    const booth = await boothEvents(created.key)
    expect(booth.status).toBe(200)
    expect(await booth.json()).toEqual({ events: expect.any(Array) })
  })

  it('when the name is missing, blank, too long or the body has unknown fields, then 400 and no key is made', async () => {
    const before = await keyRows()
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 'Booth', secret: 'mine' }]) {
      const response = await createKey(body)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({
        success: false,
        error: { name: 'ZodError', message: expect.any(String) },
      })
    }
    expect(await keyRows()).toBe(before)
  })
})

describe('GET /staff/booth-keys', () => {
  it('when keys exist, then they are listed oldest first with their last use, and never a secret', async () => {
    const first = await (await createKey({ name: 'Booth A' })).json()
    const second = await (await createKey({ name: 'Booth B' })).json()
    const beforeUse = Date.now()
    expect((await boothEvents(second.key)).status).toBe(200)
    const afterUse = Date.now()

    const response = await staffFetch(app, staff, '/staff/booth-keys')
    expect(response.status).toBe(200)
    const text = await response.text()
    for (const { key } of [first, second]) expect(text).not.toContain(key.replace(/^pbk_[A-Za-z0-9]{12}_/, ''))
    const listed = JSON.parse(text).keys.filter((key: { id: string }) => key.id === first.id || key.id === second.id)
    const { key: _first, ...firstListed } = first
    const { key: _second, ...secondListed } = second
    expect(listed).toEqual([firstListed, { ...secondListed, lastUsedAt: expect.any(Number) }])
    expect(listed[1].lastUsedAt).toBeGreaterThanOrEqual(beforeUse)
    expect(listed[1].lastUsedAt).toBeLessThanOrEqual(afterUse)
  })
})

describe('POST /staff/booth-keys/:keyId/revoke', () => {
  it('when a key is revoked, then the booth API refuses it at once, and revoking again changes nothing', async () => {
    const { key, ...created } = await (await createKey({ name: 'Booth to revoke' })).json()
    expect((await boothEvents(key)).status).toBe(200)
    const { lastUsedAt } = (await listKeys()).find((listed: { id: string }) => listed.id === created.id)

    const before = Date.now()
    const response = await revokeKey(created.id)
    expect(response.status).toBe(200)
    const revoked = await response.json()
    expect(revoked).toEqual({ ...created, lastUsedAt, revokedAt: expect.any(Number) })
    expect(revoked.revokedAt).toBeGreaterThanOrEqual(before)
    expect(revoked.revokedAt).toBeLessThanOrEqual(Date.now())

    const refused = await boothEvents(key)
    expect(refused.status).toBe(401)
    expect(await refused.text()).toBe('Unauthorized')

    const again = await revokeKey(created.id)
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(revoked)
    expect((await listKeys()).find((listed: { id: string }) => listed.id === created.id)).toEqual(revoked)
  })

  it('when the key is unknown, then 404 "no such booth key"', async () => {
    const response = await revokeKey('nosuchkey123')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such booth key', code: 'no_such_booth_key' })
  })
})
