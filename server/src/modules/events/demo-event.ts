import type { EntityManager } from '@mikro-orm/postgresql'

import { Event } from '../../db/entities/event.entity.js'
import { createEvent } from './events.service.js'
import { lockFor } from '../../db/lock.js'

export const DEMO = {
  eventSlug: 'demo',
  sets: [
    { slug: 'photo-wall', name: 'Photo Wall' },
    { slug: 'mirror-booth', name: 'Mirror Booth' },
  ],
} as const

/**
 * The demo event with two sets to try the kiosk routes on. `whenEmpty` (the first start): only if
 * there is no event at all; otherwise (`pnpm admin demo seed`): unless an event already has its slug.
 */
export async function seedDemo(em: EntityManager, { whenEmpty }: { whenEmpty: boolean }): Promise<'created' | 'exists'> {
  return em.transactional(async (tx) => {
    // Serialises concurrent first starts so that only one of them seeds.
    await lockFor(tx, 'photobooth:seed')
    if ((await tx.count(Event, whenEmpty ? {} : { slug: DEMO.eventSlug })) > 0) return 'exists'
    await createEvent(tx, { slug: DEMO.eventSlug, name: 'Demo Party', startAt: new Date(), sets: [...DEMO.sets] })
    return 'created'
  })
}
