import { listingChoiceOf } from '../exports/index.js'
import { LockMode } from '@mikro-orm/core'
import { galleryLink } from '@photobooth/sdk'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { Customer } from '../../db/entities/customer.entity.js'
import { messagesByGuest } from '../messages/index.js'
import { TOUCH_EVENT } from '../events/index.js'
import { FORGET_SESSIONS } from '../idempotency/index.js'
import { deriveLabel, fullName, queriedPhone } from '../common/index.js'
import { deleteSessions, GONE, removeDeletedPhotos, type DeletedCounts } from '../sessions/index.js'
import { SessionGuest } from '../../db/entities/session-guest.entity.js'
import { Session } from '../../db/entities/session.entity.js'
import { PEOPLE_QUERIES, type PersonRow } from './people.queries.js'
import { run } from '../../db/query.js'

/** The answer for a customer id that names nothing (or someone already erased). */
export const NO_SUCH_PERSON = 'no such person'

const nameOf = (row: { first_name: string; last_name: string }) => fullName({ firstName: row.first_name, lastName: row.last_name })

/** Everyone registered with this email (whatever its case) or this phone (as typed: E.164, or US without a country code). */
export async function findPeople({ em }: Pick<AppContext, 'em'>, query: { email?: string; phone?: string }) {
  let rows: PersonRow[]
  if (query.email !== undefined) rows = await run(em, PEOPLE_QUERIES.byEmail, [query.email, query.email])
  else {
    const phone = queriedPhone(query.phone ?? '')
    rows = await run(em, PEOPLE_QUERIES.byPhone, [phone, phone])
  }
  return {
    people: rows.map((row) => ({
      id: row.id,
      email: row.email,
      phone: row.phone,
      name: nameOf(row),
      registrations: row.registrations,
      events: row.events,
    })),
  }
}

/**
 * One person's data as they may ask for it (GDPR article 15 and 20): their customer record and each
 * guest row of theirs with its consent, where it was, its session and gallery link, and the messages
 * sent to them. Nothing of the other guests of their sessions (the label, made of their names, is left out).
 */
export async function exportPerson({ em, config, now }: Pick<AppContext, 'em' | 'config' | 'now'>, { customerId }: { customerId: string }) {
  const customer = await em.findOne(Customer, customerId)
  if (!customer) throw new AppError('no_such_person', NO_SUCH_PERSON)
  const rows = await run(em, PEOPLE_QUERIES.registrations, [customerId])
  const messages = await messagesByGuest(em, [...new Set(rows.map((row) => row.session_id))])
  return {
    person: {
      id: customer.id,
      email: customer.email ?? null,
      phone: customer.phone ?? null,
      name: fullName(customer),
      createdAt: customer.createdAt.getTime(),
    },
    registrations: rows.map((row) => ({
      guestId: row.guest_id,
      name: nameOf(row),
      email: row.email,
      phone: row.phone,
      marketingOptIn: row.marketing_opt_in,
      agreedToListing: row.listing_choice === true,
      listingChoice: listingChoiceOf(row.listing_choice),
      listedOnEventPage: row.listed,
      privacyNoticeVersion: row.privacy_notice_version,
      registeredAt: row.registered_at,
      event: { id: row.event_id, slug: row.event_slug, name: row.event_name, startAt: row.start_at },
      set: { id: row.set_id, slug: row.set_slug, name: row.set_name },
      session: {
        id: row.session_id,
        status: row.status,
        galleryUrl: galleryLink(config.galleryUrl, row.session_id),
        photos: row.photo_count,
      },
      // Only the messages to this guest row: a shared session's others are not theirs.
      messages: messages.get(row.guest_id) ?? [],
    })),
    exportedAt: now().getTime(),
  }
}

/**
 * Erases one person (GDPR article 17): the sessions where they were the only guest go whole (photos
 * from storage too, by the session deletion's queue); from a shared session only their guest rows go,
 * with their messages, and its label is made again from the guests who stay; their customer record
 * goes last. Stored idempotent answers naming any of those sessions are forgotten (a registration's
 * answer holds the label), and the events' pages and galleries change their ETags.
 */
export async function erasePerson(
  deps: Pick<AppContext, 'em' | 'orm' | 'storage' | 'logger' | 'config'>,
  { customerId }: { customerId: string },
) {
  const counts = await deps.em.transactional(async (tx): Promise<DeletedCounts> => {
    const customer = await tx.findOne(Customer, customerId, { lockMode: LockMode.PESSIMISTIC_WRITE })
    if (!customer) throw new AppError('no_such_person', NO_SUCH_PERSON)
    const sessions = await run(tx, PEOPLE_QUERIES.sessionsToErase, [customerId, customerId])
    const shared = sessions.filter((session) => session.shared).map((session) => session.id)
    const guests = await tx.count(SessionGuest, { customer: customerId })
    const deleted = await deleteSessions(
      tx,
      sessions.filter((session) => !session.shared).map((session) => session.id),
    )
    if (shared.length > 0) {
      await tx.nativeDelete(SessionGuest, { customer: customerId, session: { $in: shared } })
      for (const sessionId of shared) {
        const stay = await tx.find(
          SessionGuest,
          { session: sessionId },
          { orderBy: { position: 'asc' }, fields: ['firstName', 'lastName'] },
        )
        await tx.nativeUpdate(Session, { id: sessionId }, { label: deriveLabel(stay) })
      }
      await run(tx, FORGET_SESSIONS, [JSON.stringify(GONE), shared.map((id) => `%${id}%`)])
    }
    for (const eventId of new Set(sessions.map((session) => session.event_id))) await run(tx, TOUCH_EVENT, [eventId])
    await tx.nativeDelete(Customer, { id: customerId })
    return { sessions: deleted.sessions, guests, photos: deleted.photos }
  })
  await removeDeletedPhotos(deps)
  return { erased: counts }
}
