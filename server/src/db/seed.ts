import type { EntityManager } from '@mikro-orm/postgresql'

import { newId } from '../ids.js'

export const DEMO = { eventSlug: 'demo', setSlugs: ['photo-wall', 'mirror-booth'] } as const

/** On the first run (no events at all), a demo event with two sets to try the kiosk routes on. */
export async function seedDemo(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    // Serialises concurrent first starts so that only one of them seeds.
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', ['photobooth:seed'])
    const [existing] = await tx.execute<{ count: string }[]>('select count(*) from event')
    if (Number(existing?.count) > 0) return
    const eventId = newId()
    await tx.execute('insert into event (id, slug, name, start_at) values (?, ?, ?, now())', [eventId, DEMO.eventSlug, 'Demo Party'])
    await tx.execute('insert into event_set (id, event_id, slug, name) values (?, ?, ?, ?), (?, ?, ?, ?)', [
      newId(), eventId, DEMO.setSlugs[0], 'Photo Wall',
      newId(), eventId, DEMO.setSlugs[1], 'Mirror Booth',
    ])
  })
}
