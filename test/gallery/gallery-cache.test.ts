import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { seedEvent, seedSession, startTestServer, type TestServer } from '../support/harness.js'
import { startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'

let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=600'

/** A GET with `If-None-Match`, and the statements it cost. */
async function revalidate(path: string, etag: string, target = app) {
  target.queries.length = 0
  const response = await fetch(`${target.url}${path}`, { headers: { 'if-none-match': etag } })
  return { response, body: await response.text(), statements: target.queries.length }
}

async function etagOf(path: string, target = app) {
  const response = await fetch(`${target.url}${path}`)
  expect(response.status, path).toBe(200)
  await response.arrayBuffer()
  return response.headers.get('etag')!
}

describe('a live gallery as a CDN may cache it', () => {
  for (const kind of ['JSON', 'page'] as const) {
    it(`when its ${kind} is asked again with its ETag, then 304 with no body, from one statement`, async () => {
      const { sets } = await seedEvent(app.orm)
      const session = await seedSession(app.orm, sets[0]!.id, { photos: 20 })
      const path = kind === 'JSON' ? `/gallery/${session.id}` : `/g/${session.id}`
      const first = await fetch(`${app.url}${path}`)
      expect(first.status).toBe(200)
      expect(first.headers.get('cache-control')).toBe(CACHE_CONTROL)
      const etag = first.headers.get('etag')!
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/)

      const again = await revalidate(path, etag)
      expect(again.response.status).toBe(304)
      expect(again.body).toBe('')
      expect(again.response.headers.get('etag')).toBe(etag)
      expect(again.response.headers.get('cache-control')).toBe(CACHE_CONTROL)
      expect(again.response.headers.get('strict-transport-security')).toBeTruthy()
      expect(again.statements).toBe(1)

      // Another tag, `*`, and a list holding it (strong or weak) are compared as RFC 9110 says.
      expect((await revalidate(path, 'W/"something-else"')).response.status).toBe(200)
      expect((await revalidate(path, '*')).response.status).toBe(304)
      expect((await revalidate(path, `"x", ${etag.slice(2)}`)).response.status).toBe(304)
      const head = await fetch(`${app.url}${path}`, { method: 'HEAD', headers: { 'if-none-match': etag } })
      expect(head.status).toBe(304)
    })
  }

  it('when the JSON and the page of one gallery are compared, then their ETags differ (one cache may hold both)', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const json = await etagOf(`/gallery/${session.id}`)
    const page = await etagOf(`/g/${session.id}`)
    expect(json).not.toBe(page)
    expect((await revalidate(`/g/${session.id}`, json)).response.status).toBe(200)
  })

  it('when staff rename the event or one of its sets, then the gallery’s and the event page’s ETags move on and the old ones get the new body', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const galleryBefore = await etagOf(`/gallery/${session.id}`)
    const eventBefore = await etagOf(`/gallery/events/${event.slug}`)
    const pageBefore = await etagOf(`/g/events/${event.slug}`)

    expect((await staffFetch(app, staff, `/staff/events/${event.id}`, { method: 'PATCH', body: { name: 'Renamed Gala' } })).status).toBe(
      200,
    )
    const stale = await revalidate(`/gallery/${session.id}`, galleryBefore)
    expect(stale.response.status).toBe(200)
    expect(JSON.parse(stale.body).event.name).toBe('Renamed Gala')
    expect((await revalidate(`/gallery/events/${event.slug}`, eventBefore)).response.status).toBe(200)
    expect((await revalidate(`/g/events/${event.slug}`, pageBefore)).response.status).toBe(200)

    const eventAfterRename = await etagOf(`/gallery/events/${event.slug}`)
    expect((await staffFetch(app, staff, `/staff/sets/${sets[0]!.id}`, { method: 'PATCH', body: { name: 'Mirror' } })).status).toBe(200)
    const afterSet = await revalidate(`/gallery/events/${event.slug}`, eventAfterRename)
    expect(afterSet.response.status).toBe(200)
    expect(JSON.parse(afterSet.body).sets[0].name).toBe('Mirror')

    const beforeNewSet = await etagOf(`/gallery/events/${event.slug}`)
    expect(
      (await staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'new-set', name: 'New Set' } }))
        .status,
    ).toBe(201)
    expect((await revalidate(`/gallery/events/${event.slug}`, beforeNewSet)).response.status).toBe(200)
  })

  it('when a session goes live or a live one is deleted, then the event page’s ETag moves on, but not the other galleries’', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const first = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const eventBefore = await etagOf(`/gallery/events/${event.slug}`)
    const galleryBefore = await etagOf(`/gallery/${first.id}`)

    const second = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const afterNew = await revalidate(`/gallery/events/${event.slug}`, eventBefore)
    expect(afterNew.response.status).toBe(200)
    expect(JSON.parse(afterNew.body).sets[0].sessions.map((s: { id: string }) => s.id)).toContain(second.id)
    expect((await revalidate(`/gallery/${first.id}`, galleryBefore)).response.status).toBe(304)

    const beforeDelete = afterNew.response.headers.get('etag')!
    expect((await staffFetch(app, staff, `/staff/sessions/${second.id}`, { method: 'DELETE' })).status).toBe(200)
    expect((await revalidate(`/gallery/events/${event.slug}`, beforeDelete)).response.status).toBe(200)
  })

  it('when the event turns private or the gallery is deleted, then an old ETag gets the 404, not a 304', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const eventTag = await etagOf(`/gallery/events/${event.slug}`)
    const pageTag = await etagOf(`/g/events/${event.slug}`)
    const galleryTag = await etagOf(`/gallery/${session.id}`)
    expect((await staffFetch(app, staff, `/staff/events/${event.id}`, { method: 'PATCH', body: { isPrivate: true } })).status).toBe(200)
    expect((await revalidate(`/gallery/events/${event.slug}`, eventTag)).response.status).toBe(404)
    expect((await revalidate(`/g/events/${event.slug}`, pageTag)).response.status).toBe(404)

    expect((await staffFetch(app, staff, `/staff/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200)
    const gone = await revalidate(`/gallery/${session.id}`, galleryTag)
    expect(gone.response.status).toBe(404)
    expect(JSON.parse(gone.body)).toEqual({ error: 'no such gallery', code: 'no_such_gallery' })
  })

  it('when an instance builds photo URLs on another CDN, then its ETags differ', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const other = await startTestServer({ cdnUrl: 'https://cdn.example.net/photos' })
    try {
      expect(await etagOf(`/gallery/${session.id}`, other)).not.toBe(await etagOf(`/gallery/${session.id}`))
    } finally {
      await other.stop()
    }
  })

  it('when a gallery is not live, then its 404 carries no validator to cache', async () => {
    const { sets } = await seedEvent(app.orm)
    const session = await seedSession(app.orm, sets[0]!.id, { status: 'active' })
    const response = await fetch(`${app.url}/gallery/${session.id}`, { headers: { 'if-none-match': '*' } })
    expect(response.status).toBe(404)
    expect(response.headers.get('etag')).toBeNull()
  })
})

describe('revalidations of a busy gallery, answered from the versions read in the last second', () => {
  // This instance's clock, stopped during each test (a slow machine cannot let the second pass) and
  // moved by the tests; the versions it keeps last a second of it.
  let stoppedAt: number | undefined
  let clocked: TestServer
  let clockedStaff: StaffSession
  beforeAll(async () => {
    ;({ app: clocked, staff: clockedStaff } = await startStaffTestServer({}, { now: () => new Date(stoppedAt ?? Date.now()) }))
  })
  afterAll(() => clocked?.stop())
  beforeEach(() => void (stoppedAt = Date.now()))
  afterEach(() => void (stoppedAt = undefined))

  for (const kind of ['JSON', 'page'] as const) {
    it(`when the ${kind} is revalidated again within the second, then no statement; after a staff change on this instance, the new body at once`, async () => {
      const { event, sets } = await seedEvent(clocked.orm)
      const session = await seedSession(clocked.orm, sets[0]!.id, { photos: 2 })
      const path = kind === 'JSON' ? `/gallery/${session.id}` : `/g/${session.id}`
      const etag = await etagOf(path, clocked)
      expect((await revalidate(path, etag, clocked)).statements).toBe(1)
      const again = await revalidate(path, etag, clocked)
      expect(again.response.status).toBe(304)
      expect(again.statements).toBe(0)

      expect(
        (await staffFetch(clocked, clockedStaff, `/staff/events/${event.id}`, { method: 'PATCH', body: { name: 'Renamed at once' } }))
          .status,
      ).toBe(200)
      const changed = await revalidate(path, etag, clocked)
      expect(changed.response.status).toBe(200)
      expect(changed.body).toContain('Renamed at once')

      // A deletion too: the old tag gets the 404 at once, not a 304 from before it.
      const current = changed.response.headers.get('etag')!
      expect((await revalidate(path, current, clocked)).response.status).toBe(304)
      expect((await staffFetch(clocked, clockedStaff, `/staff/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200)
      expect((await revalidate(path, current, clocked)).response.status).toBe(404)
    })
  }

  it('when another instance changes the event (here: the database, written directly), then this instance answers 304 for at most a second, then the new body', async () => {
    const { event, sets } = await seedEvent(clocked.orm)
    const session = await seedSession(clocked.orm, sets[0]!.id, { photos: 1 })
    const path = `/gallery/events/${event.slug}`
    const etag = await etagOf(path, clocked)
    expect((await revalidate(path, etag, clocked)).response.status).toBe(304)

    await clocked.orm.em.fork().execute(`update event set name = 'Renamed elsewhere', updated_at = now() where id = ?`, [event.id])
    const within = await revalidate(path, etag, clocked)
    expect(within.response.status).toBe(304)
    expect(within.statements).toBe(0)

    stoppedAt = stoppedAt! + 1_000
    const after = await revalidate(path, etag, clocked)
    expect(after.response.status).toBe(200)
    expect(JSON.parse(after.body).name).toBe('Renamed elsewhere')
    expect(JSON.parse(after.body).sets[0].sessions[0].id).toBe(session.id)
  })
})
