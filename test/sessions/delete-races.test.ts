import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { postJson, seedEvent, type TestServer } from '../support/harness.js'
import { startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'
import { testDatabaseUrl } from '../support/database-url.js'

let app: TestServer
let staff: StaffSession
let deleter: pg.Client
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
  deleter = new pg.Client({ connectionString: testDatabaseUrl() })
  await deleter.connect()
})
afterAll(async () => {
  await deleter?.end()
  await app?.stop()
})

/** Resolves once some statement of the service waits for a row lock held by the deleter's transaction. */
async function someoneWaitsForTheDeleter(): Promise<void> {
  const pid = (await deleter.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
  for (;;) {
    const [row] = await app.orm.em
      .fork()
      .execute<{ waiting: string }[]>(`select count(*) as waiting from pg_stat_activity where ?::int = any(pg_blocking_pids(pid))`, [pid])
    if (Number(row!.waiting) > 0) return
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * A deletion committed while a request that needs the deleted row is in flight: the request must
 * answer the 404 of a row that is not there, not a foreign-key violation's 500.
 */
describe('a deletion meets a request in flight', () => {
  it('when a set is deleted while a guest registers at it, then the registration answers 404 no such set', async () => {
    const { sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    await deleter.query('begin')
    await deleter.query('delete from event_set where id = $1', [setId])
    const registration = postJson(`${app.url}/sets/${setId}/sessions`, { guests: [{ name: 'Ada', email: 'race@example.org' }] })
    await someoneWaitsForTheDeleter()
    await deleter.query('commit')
    const response = await registration
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such set', code: 'no_such_set' })
  })

  it('when an event is deleted while staff add a set to it, then the set answers 404 no such event', async () => {
    const { event } = await seedEvent(app.orm)
    await deleter.query('begin')
    await deleter.query('delete from event where id = $1', [event.id])
    const creation = staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'late', name: 'Late' } })
    await someoneWaitsForTheDeleter()
    await deleter.query('commit')
    const response = await creation
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })
})
