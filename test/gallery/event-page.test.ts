import { createClient } from '@photobooth/sdk'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { describe, expect, it } from 'vitest'

import { seedEvent, seedSession, withTestServer } from '../support/harness.js'

const app = withTestServer()

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000)

describe('GET /gallery/events/:slug', () => {
  it('when an event has sets with live sessions, then each set lists them newest first with their photos', async () => {
    const startAt = new Date('2026-07-04T17:30:00.123Z')
    const { event, sets } = await seedEvent(app.orm, { sets: 2, startAt })
    const older = await seedSession(app.orm, sets[0]!.id, { photos: 2, createdAt: minutesAgo(10) })
    const newer = await seedSession(app.orm, sets[0]!.id, { photos: 1, createdAt: minutesAgo(5) })

    const response = await fetch(`${app.url}/gallery/events/${event.slug}`)
    expect(response.status).toBe(200)
    const page = await response.json()
    expect(page).toEqual({
      id: event.id,
      slug: event.slug,
      name: event.name,
      startAt: startAt.getTime(),
      sets: [
        {
          id: sets[0]!.id,
          slug: 'set-1',
          name: 'Set 1',
          sessions: [newer, older].map((session) => ({
            id: session.id,
            label: session.label,
            createdAt: expect.any(Number),
            photos: session.photos.map((photo) => ({
              id: photo.id,
              url: `${app.config.cdnUrl}/${photo.storageKey}`,
              width: photo.width,
              height: photo.height,
            })),
          })),
        },
        { id: sets[1]!.id, slug: 'set-2', name: 'Set 2', sessions: [] },
      ],
    })
    expect(page.sets[0].sessions[0].createdAt).toBeGreaterThan(page.sets[0].sessions[1].createdAt)
  })

  it('when a set has more than 12 live sessions, then the latest 12 are listed, newest first, and its nextCursor gives the next ones of that set alone, to the last', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    const sessions = []
    for (let i = 0; i < 27; i++) sessions.push(await seedSession(app.orm, sets[0]!.id, { photos: 1, createdAt: minutesAgo(100 - i) }))
    const other = await seedSession(app.orm, sets[1]!.id, { photos: 1, createdAt: minutesAgo(50) })
    const newestFirst = sessions.map((session) => session.id).reverse()
    const ids = (set: { sessions: { id: string }[] }) => set.sessions.map((session) => session.id)

    const page = await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()
    expect(ids(page.sets[0])).toEqual(newestFirst.slice(0, 12))
    expect(page.sets[0].nextCursor).toEqual(expect.any(String))
    // A set that fits one page has no cursor.
    expect(page.sets[1]).toEqual({ id: sets[1]!.id, slug: 'set-2', name: 'Set 2', sessions: [expect.objectContaining({ id: other.id })] })

    // Through the SDK, as a page's script or an operator's front end asks for it: the same event, that set alone.
    const client = createClient({ baseUrl: app.url })
    const second = await client.gallery.getEventPage({ slug: event.slug, cursor: page.sets[0].nextCursor })
    expect({ ...second, sets: undefined }).toEqual({ ...page, sets: undefined })
    expect(second.sets.map((set) => set.id)).toEqual([sets[0]!.id])
    expect(ids(second.sets[0]!)).toEqual(newestFirst.slice(12, 24))
    const third = await client.gallery.getEventPage({ slug: event.slug, cursor: second.sets[0]!.nextCursor })
    expect(ids(third.sets[0]!)).toEqual(newestFirst.slice(24))
    expect(third.sets[0]!.nextCursor).toBeUndefined()
  })

  it('when a cursor is not a set’s nextCursor, then 400 invalid_cursor; one of another event’s set lists no set', async () => {
    const { event, sets } = await seedEvent(app.orm)
    for (let i = 0; i < 13; i++) await seedSession(app.orm, sets[0]!.id, { photos: 1, createdAt: minutesAgo(30 - i) })
    const other = await seedEvent(app.orm)
    const cursor = (await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()).sets[0].nextCursor
    for (const wrong of ['nonsense', Buffer.from('[1,2,3]').toString('base64url'), Buffer.from('{"set":"x"}').toString('base64url')]) {
      const response = await fetch(`${app.url}/gallery/events/${event.slug}?cursor=${wrong}`)
      expect(response.status, wrong).toBe(400)
      expect(await response.json()).toEqual({
        error: 'Invalid cursor: pass the nextCursor of a set of this event page',
        code: 'invalid_cursor',
      })
    }
    const elsewhere = await (await fetch(`${app.url}/gallery/events/${other.event.slug}?cursor=${cursor}`)).json()
    expect(elsewhere).toMatchObject({ id: other.event.id, sets: [] })
  })

  it('when sessions are active, cancelled or completed without photos, then they are not listed', async () => {
    const { event, sets } = await seedEvent(app.orm)
    await seedSession(app.orm, sets[0]!.id, { status: 'active', photos: 0 })
    await seedSession(app.orm, sets[0]!.id, { status: 'cancelled', photos: 0 })
    await seedSession(app.orm, sets[0]!.id, { status: 'completed', photos: 0 })
    const live = await seedSession(app.orm, sets[0]!.id, { status: 'completed', photos: 1 })
    const page = await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()
    expect(page.sets[0].sessions.map((session: { id: string }) => session.id)).toEqual([live.id])
  })

  it('when the event is private, then 404 "no such event", while its session gallery still answers', async () => {
    const { event, sets } = await seedEvent(app.orm, { isPrivate: true })
    const live = await seedSession(app.orm, sets[0]!.id, { photos: 1 })
    const response = await fetch(`${app.url}/gallery/events/${event.slug}`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
    expect((await fetch(`${app.url}/gallery/${live.id}`)).status).toBe(200)
  })

  it('when no event has the slug, then 404 "no such event"', async () => {
    const response = await fetch(`${app.url}/gallery/events/no-such-event`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })

  it('when an event is slugged "zip", then /gallery/events/zip is its page, not the zip of a session "events", and no zip limit counts it', async () => {
    await app.orm.em.fork().execute(`delete from event where slug = 'zip'`)
    const { event } = await createEvent(app.orm.em.fork(), {
      slug: 'zip',
      name: 'Zip Party',
      startAt: new Date('2026-06-01T18:00:00Z'),
      sets: [],
    })
    const statuses = new Set<number>()
    for (let i = 0; i < 61; i++) statuses.add((await fetch(`${app.url}/gallery/events/zip`)).status)
    expect([...statuses]).toEqual([200])
    expect(await (await fetch(`${app.url}/gallery/events/zip`)).json()).toMatchObject({ id: event.id, slug: 'zip', sets: [] })
  })

  it('when an event has no sets, then it answers with an empty list', async () => {
    const { event } = await seedEvent(app.orm, { sets: 0 })
    const page = await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()
    expect(page.sets).toEqual([])
  })

  it('whatever the number of sets and sessions, then the page (and a set’s next page) costs at most 3 SQL round trips', async () => {
    const small = await seedEvent(app.orm, { sets: 1 })
    await seedSession(app.orm, small.sets[0]!.id, { photos: 1 })
    const large = await seedEvent(app.orm, { sets: 6 })
    for (const set of large.sets) for (let i = 0; i < 25; i++) await seedSession(app.orm, set.id, { photos: 3, createdAt: minutesAgo(i) })
    app.queries.length = 0
    const first = await (await fetch(`${app.url}/gallery/events/${large.event.slug}`)).json()
    const next = await (await fetch(`${app.url}/gallery/events/${large.event.slug}?cursor=${first.sets[5].nextCursor}`)).json()
    expect(next.sets[0].sessions).toHaveLength(12)
    expect(app.queries.length).toBeLessThanOrEqual(6)

    for (const { event, sessions } of [
      { event: small.event, sessions: 1 },
      { event: large.event, sessions: 6 * 12 },
    ]) {
      app.queries.length = 0
      const page = await (await fetch(`${app.url}/gallery/events/${event.slug}`)).json()
      const listed = page.sets.reduce((sum: number, set: { sessions: unknown[] }) => sum + set.sessions.length, 0)
      expect(listed).toBe(sessions)
      expect(app.queries.length).toBeGreaterThan(0)
      expect(app.queries.length).toBeLessThanOrEqual(3)
    }
  })
})
