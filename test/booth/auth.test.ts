import { createClient, isDefinedError, safe } from '@photobooth/sdk'
import { contract } from '@photobooth/sdk/contract'
import { revokeBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, startTestServer, withTestServer } from '../support/harness.js'

const app = withTestServer()
let validKey: string
let revokedKey: string
let eventId: string
beforeAll(async () => {
  eventId = (await seedEvent(app.orm)).event.id
  validKey = await createTestBoothKey(app, 'Valid booth')
  revokedKey = await createTestBoothKey(app, 'Revoked booth')
  await revokeBoothKey(app.orm.em.fork(), revokedKey.split('_')[1]!)
})

type BoothProcedure = keyof typeof contract.booth

/** Every /booth route of the contract, with its path parameters filled in with an id that names nothing. */
const boothRoutes = (Object.keys(contract.booth) as BoothProcedure[]).map((name) => {
  const { method, path } = contract.booth[name]['~orpc'].route as { method: string; path: string }
  return { name, method, path: path.replace(/\{[^}]+\}/g, 'AAAAAAAAAAAAAAAAAAAAAA') }
})

/** The schema failure's issue paths, from the validator's shape. */
const issuePaths = (body: { error: { message: string } }) =>
  (JSON.parse(body.error.message) as { path: unknown[] }[]).map((issue) => issue.path)

/**
 * What each procedure itself answers a valid key, for an id that names nothing and the body `{}`:
 * the route's own answer, which only a request past authentication can get.
 */
const answerPastAuthentication: Record<BoothProcedure, (response: Response) => Promise<void>> = {
  listEvents: async (response) => {
    expect(response.status).toBe(200)
    expect((await response.json()).events.map((event: { id: string }) => event.id)).toContain(eventId)
  },
  listQueue: async (response) => {
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such set', code: 'no_such_set' })
  },
  createUploads: async (response) => {
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ success: false, error: { name: 'ZodError' } })
    expect(issuePaths(body)).toEqual([['count']])
  },
  complete: async (response) => {
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body).toMatchObject({ success: false, error: { name: 'ZodError' } })
    expect(issuePaths(body)).toEqual([['photos']])
  },
  cancel: async (response) => {
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  },
  claimNext: async (response) => {
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such set', code: 'no_such_set' })
  },
  claim: async (response) => {
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  },
  release: async (response) => {
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such session', code: 'no_such_session' })
  },
}

const call = (route: { method: string; path: string }, authorization?: string) =>
  fetch(`${app.url}${route.path}`, {
    method: route.method,
    headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    body: route.method === 'GET' ? undefined : JSON.stringify({}),
  })

async function expectUnauthorized(response: Response) {
  expect(response.status).toBe(401)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/)
  expect(await response.text()).toBe('Unauthorized')
}

describe.each(boothRoutes)('auth on $method $path', (route) => {
  it('when the Authorization header is missing, then 401 Unauthorized in plain text', async () => {
    await expectUnauthorized(await call(route))
  })

  it('when the key is unknown, then 401', async () => {
    await expectUnauthorized(await call(route, `Bearer pbk_AAAAAAAAAAAA_${'A'.repeat(43)}`))
  })

  it('when the secret is wrong for a real key id, then 401', async () => {
    const [prefix, id] = validKey.split('_')
    await expectUnauthorized(await call(route, `Bearer ${prefix}_${id}_${'B'.repeat(43)}`))
  })

  it('when the token is not a booth key at all, then 401', async () => {
    await expectUnauthorized(await call(route, 'Bearer some-other-token'))
  })

  it('when the key is revoked, then 401', async () => {
    await expectUnauthorized(await call(route, `Bearer ${revokedKey}`))
  })

  for (const [label, header] of [
    ['another scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['no token', 'Bearer'],
    ['no token after the space', 'Bearer '],
    ['extra parts', `Bearer ${validKey} extra`],
    ['bad characters', 'Bearer pbk_$$$'],
    ['an empty value', ''],
  ] as const) {
    it(`when the header has ${label}, then 400 { error }`, async () => {
      const response = await call(route, header)
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error: expect.stringMatching(/Authorization/), code: 'malformed_authorization' })
    })
  }

  it('when the key is valid, then the route itself answers', async () => {
    await answerPastAuthentication[route.name](await call(route, `Bearer ${validKey}`))
  })
})

describe('booth keys', () => {
  it('when a key is used, then its last use is recorded', async () => {
    const key = await createTestBoothKey(app, 'Tracked booth')
    const id = key.split('_')[1]
    const read = async () =>
      (
        await app.orm.em
          .fork()
          .execute<{ used: number | null }[]>(
            `select floor(extract(epoch from last_used_at) * 1000)::float8 as used from booth_key where id = ?`,
            [id],
          )
      )[0]!.used
    expect(await read()).toBeNull()
    expect((await fetch(`${app.url}/booth/events`, { headers: { authorization: `bearer ${key}` } })).status).toBe(200)
    expect(Math.abs(Date.now() - (await read())!)).toBeLessThan(60_000)
  })

  it('when a key is used again within a minute, then its last use is not moved; a minute later, it is', async () => {
    // The service's clock, moved by the test: authentication reads it for the time of use.
    const start = Date.parse('2030-03-01T12:00:00.000Z')
    let now = start
    const clocked = await startTestServer({}, { now: () => new Date(now) })
    try {
      const key = await createTestBoothKey(clocked, 'Clocked booth')
      const use = async () =>
        expect((await fetch(`${clocked.url}/booth/events`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
      const lastUsed = async () =>
        (
          await clocked.orm.em
            .fork()
            .execute<{ used: number | null }[]>(
              `select floor(extract(epoch from last_used_at) * 1000)::float8 as used from booth_key where id = ?`,
              [key.split('_')[1]],
            )
        )[0]!.used
      await use()
      expect(await lastUsed()).toBe(start)
      now = start + 30_000
      await use()
      now = start + 60_000
      await use()
      expect(await lastUsed()).toBe(start)
      now = start + 60_001
      await use()
      expect(await lastUsed()).toBe(start + 60_001)
      now = start + 90_000
      await use()
      expect(await lastUsed()).toBe(start + 60_001)
    } finally {
      await clocked.stop()
    }
  })

  it('when a key is created, then only its hash is stored', async () => {
    const key = await createTestBoothKey(app, 'Hashed booth')
    const [row] = await app.orm.em.fork().execute<Record<string, unknown>[]>('select * from booth_key where id = ?', [key.split('_')[1]])
    expect(key).toMatch(/^pbk_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/)
    expect(JSON.stringify(row)).not.toContain(key.split('_').slice(2).join('_'))
  })
})

describe('the SDK without a valid key', () => {
  it('when a booth route answers 401, then a typed UNAUTHORIZED error comes back', async () => {
    const [error] = await safe(createClient({ baseUrl: app.url, boothKey: 'pbk_nope' }).booth.listEvents())
    expect(isDefinedError(error) && [error.code, error.status, error.message]).toEqual(['UNAUTHORIZED', 401, 'Unauthorized'])
  })
})
