import { createClient } from '@photobooth/sdk'
import { loadSettings } from '@photobooth/server/config'
import { migrate, openOrm, pendingMigrations } from '@photobooth/server/db/orm'
import { createLogger } from '@photobooth/server/logger'
import { afterAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { startTestServer } from '../support/harness.js'

const databases = scratchDatabases('health')
afterAll(() => databases.dropAll())

/** A logger whose records are kept, parsed. */
function capturingLogger() {
  const records: Record<string, unknown>[] = []
  return { records, logger: createLogger({ write: (line) => void records.push(JSON.parse(line) as Record<string, unknown>) }) }
}

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
      const statuses = await Promise.all(
        Array.from({ length: 150 }, (_, i) => fetch(`${app.url}/${i % 2 ? 'healthz' : 'readyz'}`).then((r) => r.status)),
      )
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
      expect(await before.json()).toEqual({ error: 'migrations pending', code: 'not_ready' })
      // The SDK's probe (contract: operations) tells the same: an ApiError with the 503 and its reason.
      const client = createClient({ baseUrl: app.url })
      expect(await client.operations.live()).toEqual({ status: 'ok' })
      await expect(client.operations.ready()).rejects.toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        defined: true,
        message: 'migrations pending',
      })
      const [tables] = await orm.em
        .getConnection()
        .execute<{ count: string }[]>(`select count(*) from information_schema.tables where table_name = 'session'`)
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

  it('when started with MIGRATE_ON_START=false ahead of its migrations, then it warns once, naming them, and delivery and the demo wait for them without an error line', async () => {
    const databaseUrl = await databases.create()
    const { records, logger } = capturingLogger()
    const { delivery } = loadSettings({ MODE: 'development' })
    const app = await startTestServer(
      { databaseUrl, migrateOnStart: false, seedDemo: true, delivery: { ...delivery, dispatch: true } },
      { logger },
    )
    const orm = await openOrm(databaseUrl)
    try {
      expect(records.filter((record) => record.level !== 'info')).toEqual([
        {
          level: 'warn',
          time: expect.any(String),
          message: expect.stringContaining('migrations pending'),
          pending: await pendingMigrations(orm),
        },
      ])
      // A look at the migrations after the one at start: the dispatcher, unchecked, would have failed by now.
      await app.sent(/from "public"\."mikro_orm_migrations"/, 1)
      expect(records.filter((record) => record.level !== 'info')).toHaveLength(1)
      expect((await fetch(`${app.url}/readyz`)).status).toBe(503)

      const claimed = app.sent(/from outbox_message/, 1)
      await migrate(orm)
      await claimed
      expect(records.filter((record) => record.message === 'migrations applied: starting the work that waited for them')).toHaveLength(1)
      await expect.poll(() => orm.em.fork().execute(`select slug from event`)).toEqual([{ slug: 'demo' }])
      expect((await fetch(`${app.url}/readyz`)).status).toBe(200)
    } finally {
      await app.stop()
      await orm.close()
    }
    expect(records.filter((record) => record.level === 'error')).toEqual([])
  })

  it('when started with MIGRATE_ON_START=true, then one info line names the migrations it applied, or says that none were pending', async () => {
    const databaseUrl = await databases.create()
    const orm = await openOrm(databaseUrl)
    const names = await pendingMigrations(orm).finally(() => orm.close())
    const migrationLines = async () => {
      const { records, logger } = capturingLogger()
      await (await startTestServer({ databaseUrl, migrateOnStart: true }, { logger })).stop()
      return records.filter((record) => 'migrations' in record)
    }
    expect(await migrationLines()).toEqual([{ level: 'info', time: expect.any(String), message: 'migrations applied', migrations: names }])
    expect(await migrationLines()).toEqual([{ level: 'info', time: expect.any(String), message: 'no migrations pending', migrations: [] }])
  })

  it('when the instance is stopping, then /readyz answers 503 "draining" for the shutdown delay while everything else is still served', async () => {
    const app = await startTestServer({ shutdownDelayMs: 3_000 })
    const stopped = app.stop()
    const ready = await fetch(`${app.url}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ error: 'draining', code: 'not_ready' })
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${app.url}/gallery/no-such-session`)).status).toBe(404)
    await stopped
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow()
  })
})
