import { describe, expect, it } from 'vitest'

import { seedEvent, withTestServer } from '../support/harness.js'

const app = withTestServer()

describe('GET /events/:eventSlug/sets/:setSlug', () => {
  it('when both slugs exist, then the set and its event are answered', async () => {
    const { event, sets } = await seedEvent(app.orm, { sets: 2 })
    const response = await fetch(`${app.url}/events/${event.slug}/sets/${sets[1]!.slug}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({
      set: { id: sets[1]!.id, slug: 'set-2', name: 'Set 2' },
      // What registering needs: phones read as from the US, guests listed unless they ask, no notice.
      event: { id: event.id, slug: event.slug, name: event.name, phoneCountry: 'US', listGuestsByDefault: true },
    })
  })

  it('when the event is private, then the kiosk still loads it', async () => {
    const { event, sets } = await seedEvent(app.orm, { isPrivate: true })
    const response = await fetch(`${app.url}/events/${event.slug}/sets/${sets[0]!.slug}`)
    expect(response.status).toBe(200)
  })

  it('when the set slug names nothing, then 404 "no such set"', async () => {
    const { event } = await seedEvent(app.orm)
    const response = await fetch(`${app.url}/events/${event.slug}/sets/nope`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such set', code: 'no_such_set' })
  })

  it('when the set belongs to another event, then 404 "no such set"', async () => {
    const first = await seedEvent(app.orm, { sets: 1 })
    await seedEvent(app.orm, { sets: 2 })
    const response = await fetch(`${app.url}/events/${first.event.slug}/sets/set-2`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such set', code: 'no_such_set' })
  })

  it('when the event slug names nothing, then 404 "no such set"', async () => {
    const response = await fetch(`${app.url}/events/no-such-event/sets/set-1`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'no such set', code: 'no_such_set' })
  })

  it('when a slug is spelled as no slug is (capitals, underscores, a space, 101 characters), then 404 "no such set"', async () => {
    for (const slug of ['No-Such-Event', 'no_such_event', 'no%20such', 'x'.repeat(101)]) {
      const response = await fetch(`${app.url}/events/${slug}/sets/set-1`)
      expect([slug, response.status, await response.json()]).toEqual([slug, 404, { error: 'no such set', code: 'no_such_set' }])
    }
  })

  it('when a slug holds a control character or runs past 200 characters, then 400 in the validator shape with the parameter as path', async () => {
    for (const [slug, code] of [
      ['a%00b', 'invalid_format'],
      ['x'.repeat(201), 'too_big'],
    ]) {
      const response = await fetch(`${app.url}/events/${slug}/sets/set-1`)
      expect(response.status).toBe(400)
      const body = await response.json()
      expect(body.success).toBe(false)
      expect(body.error.name).toBe('ZodError')
      expect(JSON.parse(body.error.message)).toEqual([expect.objectContaining({ code, path: ['eventSlug'] })])
    }
  })
})
