import { LockMode, UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'

import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { AppError } from '../../errors.js'
import { newId } from '../../ids.js'
import { deleteSessions, removeDeletedPhotos, type DeletedCounts } from '../sessions/index.js'
import { Session } from '../../db/entities/session.entity.js'
import { EventSet } from '../../db/entities/event-set.entity.js'
import {
  brandingOf,
  createEvent,
  type Language,
  makeLogo,
  NO_SUCH_EVENT,
  NO_SUCH_SET,
  privacyNoticeOf,
  TOUCH_EVENT,
} from '../events/index.js'
import { Event, type BrandingText } from '../../db/entities/event.entity.js'
import { EVENT_COUNTS } from './staff-events.queries.js'
import { isPhoneCountry } from '../common/index.js'
import { requireOwnerFor, type StaffCaller } from '../staff/index.js'
import { run } from '../../db/query.js'

type Deps = Pick<AppContext, 'em' | 'config'> & { staff?: StaffCaller }

/** How long guests' data is kept is the owners' to decide (their duty to the guests): a manager's change of it is refused. */
function checkRetentionRole(staff: StaffCaller | undefined, changes: { retentionDays?: unknown }): void {
  if (changes.retentionDays !== undefined) requireOwnerFor(staff, 'retentionDays')
}

const DAY_MS = 86_400_000
/** Creating reads the clock: a new row's createdAt. */
type CreateDeps = Deps & Pick<AppContext, 'now'>
/** Deleting removes photos from storage once the rows are gone. */
type DeleteDeps = Pick<AppContext, 'em' | 'orm' | 'storage' | 'logger' | 'config'>

type PrivacyNoticeInput = { version: string; url?: string; text?: string }
export type EventInput = {
  slug: string
  name: string
  startAt: number
  isPrivate: boolean
  phoneCountry?: string | null
  privacyNotice?: PrivacyNoticeInput | null
  listGuestsByDefault?: boolean
  retentionDays?: number | null
  language?: Language | null
  kioskIdleSeconds?: number | null
  branding?: BrandingText & { logo?: string | null }
}

/**
 * An event's columns from the staff's input: the notice spread over its three columns; a country
 * checked; the branding's words stored as given and its logo made into the PNG that is served (a
 * logo left out is kept, null removes it).
 */
async function eventColumns({ startAt, phoneCountry, privacyNotice, branding, ...rest }: Partial<EventInput>) {
  if (phoneCountry && !isPhoneCountry(phoneCountry))
    throw new AppError('unknown_phone_country', `No phone numbering plan is known for the country ${phoneCountry}`)
  const { logo, ...words } = branding ?? {}
  const noLogo = { logoPng: null, logoHash: null, logoWidth: null, logoHeight: null }
  return {
    ...rest,
    ...(branding === undefined ? {} : { branding: words }),
    ...(logo === undefined ? {} : logo === null ? noLogo : await makeLogo(logo)),
    ...(startAt === undefined ? {} : { startAt: new Date(startAt) }),
    ...(phoneCountry === undefined ? {} : { phoneCountry }),
    ...(privacyNotice === undefined
      ? {}
      : {
          privacyNoticeVersion: privacyNotice?.version ?? null,
          privacyNoticeUrl: privacyNotice?.url ?? null,
          privacyNoticeText: privacyNotice?.text ?? null,
        }),
  }
}
export type SetInput = { slug: string; name: string }

/** The kiosk address of a set: `KIOSK_URL` with the slugs in it. */
function kioskUrl(template: string, eventSlug: string, setSlug: string): string {
  return template.replaceAll('{event}', encodeURIComponent(eventSlug)).replaceAll('{set}', encodeURIComponent(setSlug))
}

function toStaffSet({ config }: Pick<AppContext, 'config'>, event: Event, set: EventSet) {
  return {
    id: set.id,
    slug: set.slug,
    name: set.name,
    createdAt: set.createdAt.getTime(),
    kioskUrl: kioskUrl(config.kioskUrl, event.slug, set.slug),
  }
}

/**
 * A write's unique violation is a taken slug, the only unique key of events and sets besides their
 * random ids: the database decides, so two racing writes of one slug cannot both pass a check.
 */
async function refusingTakenSlug<T>(write: Promise<T>, message: string): Promise<T> {
  try {
    return await write
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new AppError('slug_taken', message)
    throw error
  }
}

const eventSlugTaken = (slug: string) => `An event with the slug ${slug} already exists`
const setSlugTaken = (slug: string) => `The event already has a set with the slug ${slug}`

/** The events matching `where`, newest start first, with their sets and counts: three queries however many. */
async function findStaffEvents(deps: Deps, where: FilterQuery<Event>) {
  const { em } = deps
  const events = await em.find(Event, where, { orderBy: { startAt: 'desc', id: 'asc' } })
  if (events.length === 0) return []
  const ids = events.map((event) => event.id)
  const sets = groupBy(
    await em.find(EventSet, { event: { $in: ids } }, { orderBy: { createdAt: 'asc', slug: 'asc' } }),
    (set) => set.event.id,
  )
  const counts = new Map((await run(em, EVENT_COUNTS, [ids])).map((row) => [row.event_id, row]))
  return events.map((event) => {
    const count = counts.get(event.id)
    return {
      id: event.id,
      slug: event.slug,
      name: event.name,
      startAt: event.startAt.getTime(),
      isPrivate: event.isPrivate,
      phoneCountry: event.phoneCountry ?? null,
      privacyNotice: privacyNoticeOf(event) ?? null,
      listGuestsByDefault: event.listGuestsByDefault,
      retentionDays: event.retentionDays ?? null,
      language: event.language ?? null,
      kioskIdleSeconds: event.kioskIdleSeconds ?? null,
      branding: brandingOf(event, deps.config.publicUrl) ?? {},
      expiresAt: event.startAt.getTime() + (event.retentionDays ?? deps.config.retention.defaultDays) * DAY_MS,
      purged: { sessions: event.purgedSessions, guests: event.purgedGuests, photos: event.purgedPhotos },
      createdAt: event.createdAt.getTime(),
      sets: (sets.get(event.id) ?? []).map((set) => toStaffSet(deps, event, set)),
      counts: {
        sessions: { active: count?.active ?? 0, completed: count?.completed ?? 0, cancelled: count?.cancelled ?? 0 },
        guests: count?.guests ?? 0,
        photos: count?.photos ?? 0,
        listed: count?.listed ?? 0,
      },
    }
  })
}

export async function listStaffEvents(deps: Deps) {
  return { events: await findStaffEvents(deps, {}) }
}

export async function getStaffEvent(deps: Deps, { eventId }: { eventId: string }) {
  const [event] = await findStaffEvents(deps, { id: eventId })
  if (!event) throw new AppError('no_such_event', NO_SUCH_EVENT)
  return event
}

/** A new event, without sets: staff add them one by one. */
export async function createStaffEvent(deps: CreateDeps, input: EventInput) {
  checkRetentionRole(deps.staff, input)
  const { event } = await refusingTakenSlug(
    createEvent(
      deps.em,
      { ...(await eventColumns(input)), slug: input.slug, name: input.name, startAt: new Date(input.startAt), sets: [] },
      deps.now(),
    ),
    eventSlugTaken(input.slug),
  )
  return getStaffEvent(deps, { eventId: event.id })
}

export async function updateStaffEvent(deps: Deps, { eventId, changes }: { eventId: string; changes: Partial<EventInput> }) {
  checkRetentionRole(deps.staff, changes)
  const event = await deps.em.findOne(Event, eventId)
  if (!event) throw new AppError('no_such_event', NO_SUCH_EVENT)
  // Guests' data is kept for a time after the start: a later start keeps theirs longer, which is the
  // owners' to decide as `retentionDays` is. An earlier one, or any before the first registration, is not.
  if (
    changes.startAt !== undefined &&
    changes.startAt > event.startAt.getTime() &&
    (await deps.em.count(Session, { set: { event: eventId } })) > 0
  )
    requireOwnerFor(deps.staff, 'a later start keeps its guests’ data longer')
  deps.em.assign(event, await eventColumns(changes))
  await refusingTakenSlug(deps.em.flush(), eventSlugTaken(event.slug))
  return getStaffEvent(deps, { eventId })
}

export async function createStaffSet(deps: CreateDeps, { eventId, set: input }: { eventId: string; set: SetInput }) {
  return deps.em.transactional(async (tx) => {
    // Locked by the touch: an event being deleted meanwhile is either gone (404) or waits for this set.
    if (!(await touchEvent(tx, eventId))) throw new AppError('no_such_event', NO_SUCH_EVENT)
    const event = await tx.findOneOrFail(Event, eventId)
    const set = tx.create(EventSet, { id: newId(), event, slug: input.slug, name: input.name, createdAt: deps.now() })
    await refusingTakenSlug(tx.flush(), setSlugTaken(input.slug))
    return toStaffSet(deps, event, set)
  })
}

export async function updateStaffSet(deps: Deps, { setId, changes }: { setId: string; changes: Partial<SetInput> }) {
  const set = await deps.em.findOne(EventSet, setId, { populate: ['event'] })
  if (!set) throw new AppError('no_such_set', NO_SUCH_SET)
  deps.em.assign(set, changes)
  await refusingTakenSlug(deps.em.flush(), setSlugTaken(set.slug))
  await touchEvent(deps.em, set.event.id)
  return toStaffSet(deps, set.event, set)
}

/**
 * Marks an event changed, so that its galleries' and its page's ETags move on (a set added, renamed
 * or deleted changes what they show); answers whether it exists. It locks the event's row.
 */
async function touchEvent(em: EntityManager, eventId: string): Promise<boolean> {
  const rows = await run(em, TOUCH_EVENT, [eventId])
  return rows.length > 0
}

/**
 * Deletes locked sets with their sessions, refused while one of them is active unless forced. The
 * lock makes a registration in flight either commit first (its session is counted here) or wait
 * and then find its set gone.
 */
async function deleteLockedSets(
  tx: EntityManager,
  sets: EventSet[],
  { force, owner }: { force: boolean; owner: 'event' | 'set' },
): Promise<DeletedCounts> {
  const sessions = sets.length === 0 ? [] : await tx.find(Session, { set: { $in: sets } }, { fields: ['status'], disableIdentityMap: true })
  const active = sessions.filter((session) => session.status === 'active').length
  if (active > 0 && !force) {
    throw new AppError(
      'active_sessions',
      `The ${owner} has ${active} active session${active === 1 ? '' : 's'}; pass force=true to delete it anyway`,
    )
  }
  const deleted = await deleteSessions(
    tx,
    sessions.map((session) => session.id),
  )
  if (sets.length > 0) await tx.nativeDelete(EventSet, { id: { $in: sets.map((set) => set.id) } })
  return deleted
}

/** Runs a deletion in one transaction, then removes the deleted sessions' photos from storage. */
async function deleteThenRemovePhotos(deps: DeleteDeps, deletion: (tx: EntityManager) => Promise<DeletedCounts>) {
  const deleted = await deps.em.transactional(deletion)
  await removeDeletedPhotos(deps)
  return { deleted }
}

export async function deleteStaffEvent(deps: DeleteDeps, { eventId, force }: { eventId: string; force: boolean }) {
  return deleteThenRemovePhotos(deps, async (tx) => {
    // Locked first, so that no set is added to it meanwhile.
    const event = await tx.findOne(Event, eventId, { lockMode: LockMode.PESSIMISTIC_WRITE })
    if (!event) throw new AppError('no_such_event', NO_SUCH_EVENT)
    const sets = await tx.find(EventSet, { event }, { lockMode: LockMode.PESSIMISTIC_WRITE })
    const deleted = await deleteLockedSets(tx, sets, { force, owner: 'event' })
    await tx.nativeDelete(Event, { id: eventId })
    return deleted
  })
}

export async function deleteStaffSet(deps: DeleteDeps, { setId, force }: { setId: string; force: boolean }) {
  return deleteThenRemovePhotos(deps, async (tx) => {
    const found = await tx.findOne(EventSet, setId, { fields: ['event'], disableIdentityMap: true })
    // The event first, then the set: the order an event's deletion takes its locks in.
    if (found) await touchEvent(tx, found.event.id)
    const set = found && (await tx.findOne(EventSet, setId, { lockMode: LockMode.PESSIMISTIC_WRITE }))
    if (!set) throw new AppError('no_such_set', NO_SUCH_SET)
    return deleteLockedSets(tx, [set], { force, owner: 'set' })
  })
}
