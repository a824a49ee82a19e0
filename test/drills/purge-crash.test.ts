/**
 * Drill: `kill -9` in the middle of a purge pass, then a restart on the same database and bucket.
 * The purge commits a batch of expired sessions at a time and removes their photos from storage
 * after each commit, through the deletion queue: a crash leaves each batch either whole or untouched,
 * and the next start finishes the pass. Each expired session is purged and counted exactly once,
 * every photo of theirs leaves the bucket, and a younger event loses nothing.
 *
 * The kill is made to land inside the pass: once the first batch is committed (seen on a direct
 * connection), the instance's own connections to PostgreSQL, through a TCP proxy, are stalled, so
 * it hangs in whatever statement comes next (the storage clean-up's, or the next batch's
 * transaction), and is killed there.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import { migrate, openOrm, type Orm } from '@photobooth/server/db/orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { forkDrillService, type DrillService } from '../support/drill-processes.js'
import { seedEvent, seedSession, type SeededSession } from '../support/harness.js'
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcp-proxy.js'
import { until } from '../support/until.js'

const DAY = 86_400_000
/** Five batches of the purge's 100: the kill, after the first, has several still to go. */
const EXPIRED = 500
const PHOTOS = 2

const databases = scratchDatabases('drill_purge')
let databaseUrl: string
let orm: Orm
let proxy: TcpProxy
let dataDir: string
const services: DrillService[] = []

beforeAll(async () => {
  databaseUrl = await databases.create()
  orm = await openOrm(databaseUrl)
  await migrate(orm)
  proxy = await startTcpProxy(targetOf(databaseUrl))
  dataDir = await mkdtemp(join(tmpdir(), 'photobooth-purge-drill-'))
}, 60_000)
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
  await proxy?.close()
  await orm?.close()
  await databases.dropAll()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

/** Sessions of an event, each with photos whose files are in the local bucket (DATA_DIR/bucket). */
async function eventWithSessions(startAt: Date, sessions: number): Promise<{ eventId: string; sessions: SeededSession[] }> {
  const { event, sets } = await seedEvent(orm, { startAt })
  const seedOne = async () => {
    const session = await seedSession(orm, sets[0]!.id, { photos: PHOTOS, createdAt: startAt })
    for (const photo of session.photos) {
      const file = join(dataDir, 'bucket', photo.storageKey)
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, 'jpeg bytes')
    }
    return session
  }
  const seeded: SeededSession[] = []
  // A few at a time: the pool's connections, not one round trip after another.
  for (let i = 0; i < sessions; i += 10) seeded.push(...(await Promise.all(Array.from({ length: Math.min(10, sessions - i) }, seedOne))))
  return { eventId: event.id, sessions: seeded }
}

const purgedOf = async (eventId: string) => {
  const [row] = await orm.em.fork().execute<{ sessions: number; photos: number; left: number }[]>(
    `select purged_sessions as sessions, purged_photos as photos,
              (select count(*)::int from session s join event_set st on st.id = s.set_id where st.event_id = e.id) as left
         from event e where e.id = ?`,
    [eventId],
  )
  return row!
}

const sessionFolders = async () => new Set(await readdir(join(dataDir, 'bucket', 'sessions')).catch(() => [] as string[]))

describe('a purge killed mid-pass', () => {
  it('when the instance is killed with batches still to go, then a restart finishes the pass: every expired session purged and counted once, its photos gone from storage, a younger event untouched', async () => {
    const expired = await eventWithSessions(new Date(Date.now() - 400 * DAY), EXPIRED)
    const young = await eventWithSessions(new Date(Date.now() - DAY), 3)
    expect((await sessionFolders()).size).toBe(EXPIRED + 3)

    const env = { DATA_DIR: dataDir, PURGE: 'on', DELIVERY: 'off', COPIES: 'off' }
    const first = await forkDrillService({ ...env, DATABASE_URL: proxy.through(databaseUrl) })
    services.push(first)
    await until(
      () => purgedOf(expired.eventId),
      ({ sessions }) => sessions > 0,
      30_000,
    )
    proxy.stall()
    await first.close()
    const atKill = await purgedOf(expired.eventId)
    // Killed inside the pass, and each batch whole: what is counted is exactly what is gone.
    expect(atKill.sessions).toBeGreaterThan(0)
    expect(atKill.sessions).toBeLessThan(EXPIRED)
    expect(atKill.sessions % 100).toBe(0)
    expect(atKill.left).toBe(EXPIRED - atKill.sessions)

    // The stalled connections die with the proxy's restore: PostgreSQL rolls back what they held.
    proxy.restore()
    const second = await forkDrillService({ ...env, DATABASE_URL: databaseUrl })
    services.push(second)
    const done = await until(
      () => purgedOf(expired.eventId),
      ({ left }) => left === 0,
      60_000,
    )
    expect(done).toEqual({ sessions: EXPIRED, photos: EXPIRED * PHOTOS, left: 0 })
    // Storage: the deletion queue empties, and only the young event's folders are left.
    await until(
      () => orm.em.fork().execute<{ queued: number }[]>('select count(*)::int as queued from storage_deletion'),
      ([row]) => row!.queued === 0,
      30_000,
    )
    expect([...(await sessionFolders())].sort()).toEqual(young.sessions.map((session) => session.id).sort())
    expect(await purgedOf(young.eventId)).toEqual({ sessions: 0, photos: 0, left: 3 })
  }, 120_000)
})
