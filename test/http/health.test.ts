import { createClient } from '@photobooth/sdk'
import { migrate, openOrm } from '@photobooth/server/db/orm'
import { afterAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { startTestServer } from '../support/harness.js'

const databases = scratchDatabases('health')
afterAll(() => databases.dropAll())

describe('GET /healthz and GET /readyz', () => {
  it('when the instance runs on a migrated database, then both answer 200, never cached, with the security headers and nothing else in them', async () => {
    const app = await startTestServer()
    try {
      for (const [path, body] of [
        ['/healthz', { status: 'ok' }],
        ['/readyz', { status: 'ready' }],
      ] as const) {
        const response = await fetch(`${app.url}${path}`)
        expect(response.status, path).toBe(200)
        expect(response.headers.get('cache-control'), path).toBe('no-store')
        expect(response.headers.get('strict-transport-security'), path).toBeTruthy()
        expect(await response.json(), path).toEqual(body)
      }
    } finally {
      await app.stop()
    }
  })

  it('when probed far past the rate limits, then never 429', async () => {
    const app = await startTestServer()
    try {
      const statuses = await Promise.all(Array.from({ length: 150 }, (_, i) => fetch(`${app.url}/${i % 2 ? 'healthz' : 'readyz'}`).then((r) => r.status)))
      expect(new Set(statuses)).toEqual(new Set([200]))
    } finally {
      await app.stop()
    }
  })

  it('when started with MIGRATE_ON_START=false ahead of its migrations, then it is alive but not ready until they are applied', async () => {
    const databaseUrl = await databases.create()
    const app = await startTestServer({ databaseUrl, migrateOnStart: false })
    const orm = await openOrm(databaseUrl)
    try {
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
      const before = await fetch(`${app.url}/readyz`)
      expect(before.status).toBe(503)
      expect(await before.json()).toEqual({ error: 'migrations pending' })
      // The SDK's probe (contract: operations) tells the same: an ApiError with the 503 and its reason.
      const client = createClient({ baseUrl: app.url })
      expect(await client.operations.live()).toEqual({ status: 'ok' })
      await expect(client.operations.ready()).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', defined: true, message: 'migrations pending' })
      const [tables] = await orm.em.getConnection().execute<{ count: string }[]>(`select count(*) from information_schema.tables where table_name = 'session'`)
      expect(tables!.count).toBe('0')

      expect(await migrate(orm)).toContain('20261121-initial')
      const after = await fetch(`${app.url}/readyz`)
      expect(after.status).toBe(200)
      expect(await after.json()).toEqual({ status: 'ready' })
      expect(await client.operations.ready()).toEqual({ status: 'ready' })
    } finally {
      await app.stop()
      await orm.close()
    }
  })

  it('when the instance is stopping, then /readyz answers 503 "draining" for the shutdown delay while everything else is still served', async () => {
    const app = await startTestServer({ shutdownDelayMs: 3_000 })
    const stopped = app.stop()
    const ready = await fetch(`${app.url}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ error: 'draining' })
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${app.url}/gallery/no-such-session`)).status).toBe(404)
    await stopped
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow()
  })
})
