import { beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, seedEvent, withTestServer } from '../support/harness.js'

const app = withTestServer()
let key: string
beforeAll(async () => {
  key = await createTestBoothKey(app, 'Events booth')
})

type BoothEvent = { id: string; slug: string; startAt: number; isPrivate: boolean; sets: { id: string }[] }

async function listEvents(): Promise<BoothEvent[]> {
  const response = await fetch(`${app.url}/booth/events`, { headers: { authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  return (await response.json()).events
}

describe('GET /booth/events', () => {
  it('when events start at different times, then the newest start comes first, private ones included', async () => {
    // Seeded neither in start order nor in reverse, so that neither insertion order nor its reverse passes.
    const middle = await seedEvent(app.orm, { startAt: new Date('2031-05-02T18:00:00Z') })
    const oldest = await seedEvent(app.orm, { startAt: new Date('2031-05-01T09:30:00Z'), isPrivate: true })
    const newest = await seedEvent(app.orm, { startAt: new Date('2031-05-03T12:00:00Z'), sets: 2 })
    const ours = new Set([middle.event.id, oldest.event.id, newest.event.id])

    const events = await listEvents()
    expect(events.filter((event) => ours.has(event.id)).map(({ id, startAt, isPrivate }) => ({ id, startAt, isPrivate }))).toEqual([
      { id: newest.event.id, startAt: Date.parse('2031-05-03T12:00:00Z'), isPrivate: false },
      { id: middle.event.id, startAt: Date.parse('2031-05-02T18:00:00Z'), isPrivate: false },
      { id: oldest.event.id, startAt: Date.parse('2031-05-01T09:30:00Z'), isPrivate: true },
    ])
    expect(events.find((event) => event.id === newest.event.id)!.sets.map((set) => set.id)).toEqual(newest.sets.map((set) => set.id))
    // And the whole list, other tests' events included, is in that order.
    const starts = events.map((event) => event.startAt)
    expect(starts).toEqual([...starts].sort((a, b) => b - a))
  })
})
