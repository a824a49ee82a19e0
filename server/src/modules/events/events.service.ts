import type { EntityManager } from '@mikro-orm/postgresql'

import { newId } from '../../ids.js'
import { EventSet } from '../../db/entities/event-set.entity.js'
import { Event, type BrandingText, type Language } from '../../db/entities/event.entity.js'

/** The answer for a set id or slug that names nothing, wherever a set is looked up. */
export const NO_SUCH_SET = 'no such set'

/** The answer for an event id or slug that names nothing (or, on the public page, a private event). */
export const NO_SUCH_EVENT = 'no such event'

export type NewEvent = {
  slug: string
  name: string
  startAt: Date
  isPrivate?: boolean
  phoneCountry?: string | null
  privacyNoticeVersion?: string | null
  privacyNoticeUrl?: string | null
  privacyNoticeText?: string | null
  listGuestsByDefault?: boolean
  language?: Language | null
  kioskIdleSeconds?: number | null
  branding?: BrandingText
  logoPng?: Buffer | null
  logoHash?: string | null
  logoWidth?: number | null
  logoHeight?: number | null
  sets: { slug: string; name: string }[]
}

/** Creates an event with its sets in one transaction; slugs are checked by the database. */
export async function createEvent(em: EntityManager, input: NewEvent, now = new Date()) {
  return em.transactional(async (tx) => {
    const { sets: _sets, ...columns } = input
    const event = tx.create(Event, { ...columns, id: newId(), isPrivate: input.isPrivate ?? false, createdAt: now, updatedAt: now })
    const sets = input.sets.map((set) => tx.create(EventSet, { id: newId(), event, slug: set.slug, name: set.name, createdAt: now }))
    await tx.flush()
    return {
      event: { id: event.id, slug: event.slug, name: event.name, startAt: event.startAt.getTime() },
      sets: sets.map((set) => ({ id: set.id, slug: set.slug, name: set.name })),
    }
  })
}

/** The event's privacy notice as the API shows it, when it has one. */
export function privacyNoticeOf(event: {
  privacyNoticeVersion?: string | null
  privacyNoticeUrl?: string | null
  privacyNoticeText?: string | null
}): { version: string; url?: string; text?: string } | undefined {
  if (!event.privacyNoticeVersion) return undefined
  return {
    version: event.privacyNoticeVersion,
    ...(event.privacyNoticeUrl ? { url: event.privacyNoticeUrl } : {}),
    ...(event.privacyNoticeText ? { text: event.privacyNoticeText } : {}),
  }
}
