import { LockMode } from '@mikro-orm/core'

import type { AppContext } from '../../context.js'
import { run } from '../../db/query.js'
import { transactionalWithRetry } from '../../db/retry.js'
import { AppError } from '../../errors.js'
import { newId } from '../../ids.js'
import { linkCustomers, type ContactDetails } from '../customers/index.js'
import { Customer } from '../../db/entities/customer.entity.js'
import {
  brandingOfRow,
  KIOSK_CONTEXT,
  NO_SUCH_SET,
  NOTICE_PUBLISHED,
  privacyNoticeOf,
  REGISTRATION_RULES,
  type RegistrationRulesRow,
} from '../events/index.js'
import { EventSet } from '../../db/entities/event-set.entity.js'
import { SessionGuest } from '../../db/entities/session-guest.entity.js'
import { Session } from '../../db/entities/session.entity.js'
import { DEFAULT_PHONE_COUNTRY, deriveLabel, splitName, toE164 } from '../common/index.js'

export async function loadKioskContext(
  { em, config }: Pick<AppContext, 'em' | 'config'>,
  { eventSlug, setSlug }: { eventSlug: string; setSlug: string },
) {
  const [row] = await run(em, KIOSK_CONTEXT, [setSlug, eventSlug])
  if (!row) throw new AppError('no_such_set', NO_SUCH_SET)
  const privacyNotice = privacyNoticeOf(noticeColumns(row))
  const branding = brandingOfRow(row.event_id, row, config.publicUrl)
  return {
    set: { id: row.id, slug: row.slug, name: row.name },
    event: {
      id: row.event_id,
      slug: row.event_slug,
      name: row.event_name,
      phoneCountry: row.phone_country ?? DEFAULT_PHONE_COUNTRY,
      listGuestsByDefault: row.list_guests_by_default,
      ...(privacyNotice ? { privacyNotice } : {}),
      ...(row.language ? { language: row.language } : {}),
      ...(row.kiosk_idle_seconds ? { kioskIdleSeconds: row.kiosk_idle_seconds } : {}),
      ...(branding ? { branding } : {}),
    },
  }
}

const noticeColumns = (row: Pick<RegistrationRulesRow, 'privacy_notice_version' | 'privacy_notice_url' | 'privacy_notice_text'>) => ({
  privacyNoticeVersion: row.privacy_notice_version,
  privacyNoticeUrl: row.privacy_notice_url,
  privacyNoticeText: row.privacy_notice_text,
})

export type GuestInput = { name: string; email?: string; phone?: string; marketingOptIn?: boolean; hideFromEventPage?: boolean }

/**
 * Applies the guest rules, answering the first broken one in words a guest understands, with its
 * code and the guest's field (`guests.1.phone`; `guests.1` for a missing contact: either field will
 * do) for a kiosk to highlight; phones without a country code are from `country`.
 */
export function normaliseGuests(guests: readonly GuestInput[], country = DEFAULT_PHONE_COUNTRY): ContactDetails[] {
  return guests.map((guest, index) => {
    const email = guest.email?.trim() || undefined
    const rawPhone = guest.phone?.trim() || undefined
    const phone = rawPhone === undefined ? undefined : toE164(rawPhone, country)
    if (rawPhone !== undefined && phone === undefined) {
      throw new AppError('invalid_phone', `This doesn't look like a phone number: ${rawPhone}`, { field: `guests.${index}.phone` })
    }
    if (!email && !phone) {
      throw new AppError('missing_contact', `${guest.name.trim()} needs an email or a phone number`, { field: `guests.${index}` })
    }
    return { ...splitName(guest.name), email, phone }
  })
}

/**
 * Creates the active session of 1 to 12 guests, linking each guest to a customer. Each guest is
 * recorded under `privacyNoticeVersion`, the notice the kiosk showed them (which may have been
 * replaced since, when the kiosk queued the registration offline), or the event's current one.
 */
export async function registerGuests(
  { em, now }: Pick<AppContext, 'em' | 'now'>,
  { setId, guests, privacyNoticeVersion }: { setId: string; guests: readonly GuestInput[]; privacyNoticeVersion?: string },
) {
  // The event's rules (an unknown set: the defaults, and the 404 below once the guests are checked).
  const [rules] = await run(em, REGISTRATION_RULES, [setId])
  const details = normaliseGuests(guests, rules?.phone_country ?? DEFAULT_PHONE_COUNTRY)
  if (rules && privacyNoticeVersion !== undefined) await requirePublishedNotice(em, setId, privacyNoticeVersion)
  const noticeVersion = privacyNoticeVersion ?? rules?.privacy_notice_version ?? null
  // A guest who was not asked is listed by default only where the page they registered for is public:
  // at a private event, a default is no choice, and making the event public later must not publish them.
  const listedByDefault = (rules?.list_guests_by_default ?? true) && rules?.is_private === false
  const choices = guests.map((guest) => (guest.hideFromEventPage === undefined ? null : !guest.hideFromEventPage))
  const listed = choices.map((choice) => choice ?? listedByDefault)
  // Registrations sharing new guests can deadlock on the customer indexes (email, then phone).
  const at = now()
  return transactionalWithRetry(em, async (tx) => {
    // Shared-locked: a staff member deleting the set meanwhile either waits for this session (and
    // counts it as active) or has deleted the set first, and this finds nothing.
    const set = await tx.findOne(EventSet, { id: setId }, { lockMode: LockMode.PESSIMISTIC_READ })
    if (!set) throw new AppError('no_such_set', NO_SUCH_SET)
    const customerIds = await linkCustomers(tx, details, at)
    const session = tx.create(Session, {
      id: newId(),
      set,
      label: deriveLabel(details),
      status: 'active',
      photoCount: 0,
      createdAt: at,
      // On the event page only if every guest of it agreed.
      listed: listed.every(Boolean),
    })
    details.forEach((guest, index) =>
      tx.create(SessionGuest, {
        id: newId(),
        session,
        position: index + 1,
        firstName: guest.firstName,
        lastName: guest.lastName,
        email: guest.email,
        phone: guest.phone,
        customer: tx.getReference(Customer, customerIds[index]!),
        marketingOptIn: guests[index]!.marketingOptIn ?? false,
        listed: listed[index]!,
        listingChoice: choices[index],
        privacyNoticeVersion: noticeVersion,
        registeredAt: at,
      }),
    )
    await tx.flush()
    return { id: session.id, label: session.label, status: 'active' as const }
  })
}

/** A notice version the set's event never published is refused: consent is recorded under a notice guests could have read. */
async function requirePublishedNotice(em: AppContext['em'], setId: string, version: string): Promise<void> {
  const [row] = await run(em, NOTICE_PUBLISHED, [setId, version])
  if (!row)
    throw new AppError('unknown_privacy_notice', `This event never published the privacy notice ${version}`, {
      field: 'privacyNoticeVersion',
    })
}
