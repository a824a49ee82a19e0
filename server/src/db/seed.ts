import type { EntityManager } from '@mikro-orm/postgresql'

import { Event } from '../modules/events/event.entity.js'
import { createEvent } from '../modules/events/events.service.js'
import { lockFor } from './lock.js'

export const DEMO = {
  eventSlug: 'demo',
  sets: [
    { slug: 'photo-wall', name: 'Photo Wall' },
    { slug: 'mirror-booth', name: 'Mirror Booth' },
  ],
} as const

/** On the first run (no events at all), a demo event with two sets to try the kiosk routes on. */
export async function seedDemo(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    // Serialises concurrent first starts so that only one of them seeds.
    await lockFor(tx, 'photobooth:seed')
    if ((await tx.count(Event)) > 0) return
    await createEvent(tx, { slug: DEMO.eventSlug, name: 'Demo Party', startAt: new Date(), sets: [...DEMO.sets] })
  })
}
