import { errorBody } from '../../errors.js'
import { raw, type EntityManager } from '@mikro-orm/postgresql'

import type { Services } from '../../context.js'
import { Customer } from '../../db/entities/customer.entity.js'
import { REBUILD_CUSTOMERS } from '../customers/index.js'
import { FORGET_SESSIONS } from '../idempotency/index.js'
import { Photo } from '../../db/entities/photo.entity.js'
import { StorageDeletion } from '../../db/entities/storage-deletion.entity.js'
import { purgeCdn, sessionPrefix } from '../storage/index.js'
import { SessionGuest } from '../../db/entities/session-guest.entity.js'
import { Session } from '../../db/entities/session.entity.js'
import { run } from '../../db/query.js'

export type DeletedCounts = { sessions: number; guests: number; photos: number }

/** What a replay of a request whose session was deleted answers (FORGET_SESSIONS): gone, naming nothing. */
export const GONE = errorBody(
  'gone',
  'What this request made has been deleted since (by staff, the retention purge or a guest’s request): it is not made again',
)

/** Sessions deleted per statement: an event's thousands stay well under PostgreSQL's parameter limit. */
const CHUNK = 5_000

/**
 * Deletes sessions with everything of theirs: guests, photos, messages and tracking rows go by the
 * foreign keys' cascades, a customer left without any session is erased too (one who keeps some keeps
 * only the contacts those gave), and so are the stored
 * answers of idempotency keys that name them (a guest's data does not outlive the sessions that held it). Their storage prefixes are queued for
 * `removeDeletedPhotos` in the same transaction, so storage is cleaned if and only if the rows go.
 * Call inside a transaction; after it commits, call `removeDeletedPhotos`.
 */
export async function deleteSessions(tx: EntityManager, sessionIds: readonly string[]): Promise<DeletedCounts> {
  const counts: DeletedCounts = { sessions: 0, guests: 0, photos: 0 }
  for (let start = 0; start < sessionIds.length; start += CHUNK) {
    const ids = sessionIds.slice(start, start + CHUNK)
    const guests = await tx.find(SessionGuest, { session: { $in: ids } }, { fields: ['customer'], disableIdentityMap: true })
    counts.guests += guests.length
    counts.photos += await tx.count(Photo, { session: { $in: ids } })
    await tx
      .createQueryBuilder(StorageDeletion)
      .insert(ids.map((id) => ({ prefix: sessionPrefix(id), attempts: 0, createdAt: raw('now()') as Date })))
      .onConflict('prefix')
      .ignore()
      .execute()
    counts.sessions += await tx.nativeDelete(Session, { id: { $in: ids } })
    await run(tx, FORGET_SESSIONS, [JSON.stringify(GONE), ids.map((id) => `%${id}%`)])

    const customerIds = [...new Set(guests.map((guest) => guest.customer.id))]
    if (customerIds.length === 0) continue
    const stillAttending = await tx.find(
      SessionGuest,
      { customer: { $in: customerIds } },
      { fields: ['customer'], disableIdentityMap: true },
    )
    const kept = new Set(stillAttending.map((guest) => guest.customer.id))
    const erased = customerIds.filter((id) => !kept.has(id))
    if (erased.length > 0) await tx.nativeDelete(Customer, { id: { $in: erased } })
    // Those who stay keep only what their remaining registrations gave.
    if (kept.size > 0) await run(tx, REBUILD_CUSTOMERS, [[...kept]])
  }
  return counts
}

/** Prefixes removed per pass; the rest wait for the next deletion or start. */
const PASS = 500

/**
 * Removes the queued prefixes from storage (and from the CDN's cache, through CDN_PURGE_URL when it
 * is set), each row once both have confirmed. A failure is
 * recorded on its row and left for the next pass (the next deletion, or the next start), so a
 * storage outage leaves work to do, never an orphan. Without storage configured the queue waits.
 */
export async function removeDeletedPhotos({
  orm,
  storage,
  logger,
  config,
}: Pick<Services, 'orm' | 'storage' | 'logger' | 'config'>): Promise<void> {
  if (!storage) return
  const em = orm.em.fork()
  // Never thrown to the caller: the deletion it follows has committed, and what is left stays queued.
  try {
    const queued = await em.find(StorageDeletion, {}, { orderBy: { createdAt: 'asc' }, limit: PASS, disableIdentityMap: true })
    for (const { prefix } of queued) {
      try {
        await storage.deletePrefix(prefix)
        // Gone from storage, then from the CDN's cache (if it is told): only then is the row done.
        if (config.cdnPurgeUrl) await purgeCdn(config.cdnPurgeUrl, `${config.cdnUrl}/${prefix}`)
        await em.nativeDelete(StorageDeletion, { prefix })
      } catch (error) {
        logger.error('photos of a deleted session could not be removed from storage or the CDN; retried later', error)
        const lastError = error instanceof Error ? error.message : String(error)
        await em.nativeUpdate(StorageDeletion, { prefix }, { attempts: raw('attempts + 1') as number, lastError })
      }
    }
  } catch (error) {
    logger.error('the queue of deleted photos could not be read or updated; retried later', error)
  }
}
