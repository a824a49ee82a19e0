import { openOrm, type Orm } from '@photobooth/server/db/orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { testDatabaseUrl } from '../support/database-url.js'

// Empty databases of their own: the first start of a deployment, which several instances may make at once.
const databases = scratchDatabases('first_start')
const started: TestServer[] = []
let admin: Orm

beforeAll(async () => {
  admin = await openOrm(testDatabaseUrl())
})

afterAll(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()))
  await databases.dropAll()
  await admin?.close()
})

const emptyDatabase = () => databases.create()

/** Starts `count` instances on the database at once, seeding the demo as `pnpm start` does; says how each start went. */
async function startAtOnce(databaseUrl: string, count: number): Promise<{ outcomes: string[]; servers: TestServer[] }> {
  const starts = await Promise.allSettled(Array.from({ length: count }, () => startTestServer({ databaseUrl, seedDemo: true })))
  const servers = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []))
  started.push(...servers)
  return { outcomes: starts.map((start) => (start.status === 'rejected' ? String(start.reason) : 'started')), servers }
}

type Kiosk = { set: { id: string }; event: { id: string } }

/**
 * Until `count` sessions on the database wait for a lock, read from PostgreSQL's activity view:
 * a wait inside another process, which sends no event.
 */
async function waitingOnLocks(databaseUrl: string, count: number, ms = 10_000): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1)
  const deadline = Date.now() + ms
  for (;;) {
    const [row] = await admin.em
      .fork()
      .execute<{ waiting: string }[]>(`select count(*) as waiting from pg_stat_activity where datname = ? and wait_event_type = 'Lock'`, [
        name,
      ])
    if (Number(row!.waiting) >= count) return
    if (Date.now() > deadline) throw new Error(`${row!.waiting} of ${count} sessions waited on a lock within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const countEvents = async (em: Orm['em']) =>
  (
    await em.execute<{ events: string; sets: string }[]>(
      'select (select count(*) from event) as events, (select count(*) from event_set) as sets',
    )
  )[0]

describe('instances starting at once on an empty database', () => {
  it('when two start together on a database with no tables, then both serve, every migration is applied once and the demo is seeded once', async () => {
    const { outcomes, servers } = await startAtOnce(await emptyDatabase(), 2)
    expect(outcomes).toEqual(['started', 'started'])

    // Both answer the demo's kiosk context, with the same set.
    const answers: Kiosk[] = []
    for (const server of servers) {
      const response = await fetch(`${server.url}/events/demo/sets/photo-wall`)
      expect(response.status).toBe(200)
      answers.push(await response.json())
    }
    expect(answers[1]).toEqual(answers[0])

    const em = servers[0]!.orm.em.fork()
    expect(await countEvents(em)).toEqual({ events: '1', sets: '2' })
    // The same migrations as the run's database (migrated once by the global setup), each recorded once.
    const applied = await em.execute<{ name: string }[]>('select name from mikro_orm_migrations order by name')
    const shared = await admin.em.fork().execute<{ name: string }[]>('select name from mikro_orm_migrations order by name')
    expect(applied.map((row) => row.name)).toEqual(shared.map((row) => row.name))
    expect(applied.length).toBeGreaterThan(0)
  })

  it('when two start together on a migrated database with no event yet, then both serve and the demo is seeded once', async () => {
    const databaseUrl = await emptyDatabase()
    // Migrated by a first instance, stopped before any event exists.
    await (await startTestServer({ databaseUrl, seedDemo: false })).stop()
    // The event table held locked while the two start, so that both reach the seed before either
    // can read it: they then seed at the same moment, which the seed's own lock must serialise.
    const blocker = await openOrm(databaseUrl)
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    let locked = () => {}
    const holding = new Promise<void>((resolve) => (locked = resolve))
    const transaction = blocker.em.fork().transactional(async (tx) => {
      await tx.execute('lock table event in access exclusive mode')
      locked()
      await released
    })
    try {
      await Promise.race([holding, transaction])
      const starting = startAtOnce(databaseUrl, 2)
      await waitingOnLocks(databaseUrl, 2)
      release()
      await transaction
      const { outcomes, servers } = await starting
      expect(outcomes).toEqual(['started', 'started'])
      expect(await countEvents(servers[0]!.orm.em.fork())).toEqual({ events: '1', sets: '2' })
      for (const server of servers) expect((await fetch(`${server.url}/events/demo/sets/mirror-booth`)).status).toBe(200)
    } finally {
      release()
      await transaction.catch(() => {})
      await blocker.close()
    }
  })
})
