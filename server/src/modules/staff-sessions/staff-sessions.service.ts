import { galleryLink } from '@photobooth/sdk'
import { Id, type StaffSession } from '@photobooth/sdk/schemas'
import { z } from 'zod'

import type { AppContext } from '../../context.js'
import { groupBy } from '../../db/group.js'
import { decodePageCursor, encodePageCursor } from '../../db/page-cursor.js'
import { AppError } from '../../errors.js'
import { cancelSession, liveClaims } from '../booth/index.js'
import { messagesByGuest } from '../messages/index.js'
import { Event } from '../../db/entities/event.entity.js'
import { NO_SUCH_EVENT } from '../events/index.js'
import { fullName } from '../common/index.js'
import { deleteSessions, NO_SUCH_SESSION, removeDeletedPhotos } from '../sessions/index.js'
import { SessionGuest } from '../../db/entities/session-guest.entity.js'
import { sessionPageQuery, STAFF_SESSION_QUERIES, type SessionKey, type SessionRow } from './staff-sessions.queries.js'
import { run } from '../../db/query.js'

export type StaffSessionBody = z.output<typeof StaffSession>

type ReadDeps = Pick<AppContext, 'em' | 'config' | 'now' | 'staff'>

/** An address as the staff role sees it: its first character and its domain (`a…@example.org`). */
export const maskEmail = (email: string) => `${email.slice(0, 1)}…@${email.split('@').pop()}`
/** A number as the staff role sees it: its last two digits (`+…71`). */
export const maskPhone = (phone: string) => `+…${phone.slice(-2)}`

/**
 * Guests' contact details as the caller may see them: in full for managers and owners (and server
 * code), counted for the audit trail; masked for the staff role, who run the event without needing
 * to read everyone's (one guest's are shown in full on request, `showGuestContact`).
 */
function contactsFor(staff: AppContext['staff']) {
  const masked = staff?.role === 'staff'
  return (guest: Pick<SessionGuest, 'email' | 'phone'>) => {
    if (!masked && staff) staff.auditNotes = { ...staff.auditNotes, guests: String(Number(staff.auditNotes?.guests ?? 0) + 1) }
    return masked
      ? { email: guest.email ? maskEmail(guest.email) : null, phone: guest.phone ? maskPhone(guest.phone) : null, contactMasked: true }
      : { email: guest.email ?? null, phone: guest.phone ?? null }
  }
}

/** Sessions with their guests in position order and each guest's messages: two queries for any number. */
async function toStaffSessions({ em, config, now, staff }: ReadDeps, rows: readonly SessionRow[]): Promise<StaffSessionBody[]> {
  if (rows.length === 0) return []
  const contacts = contactsFor(staff)
  const ids = rows.map((row) => row.id)
  const guests = groupBy(
    await em.find(SessionGuest, { session: { $in: ids } }, { orderBy: { position: 'asc' } }),
    (guest) => guest.session.id,
  )
  const messages = await messagesByGuest(em, ids)
  const copies = await copiesBySession(em, ids)
  const claims = await liveClaims(em, ids, now())
  return rows.map((row) => ({
    id: row.id,
    setId: row.set_id,
    label: row.label,
    status: row.status,
    photoCount: row.photo_count,
    galleryUrl: galleryLink(config.galleryUrl, row.id),
    createdAt: row.created_at,
    completedAt: row.completed_at,
    cancelledAt: row.cancelled_at,
    guests: (guests.get(row.id) ?? []).map((guest) => ({
      id: guest.id,
      name: fullName(guest),
      firstName: guest.firstName,
      lastName: guest.lastName,
      ...contacts(guest),
      messages: messages.get(guest.id) ?? [],
    })),
    ...(copies.has(row.id) && { copies: copies.get(row.id) }),
    ...(claims.has(row.id) && { claim: claims.get(row.id) }),
  }))
}

/** Where each session's photo copies stand (sessions without photos have none). */
async function copiesBySession(em: AppContext['em'], ids: string[]) {
  const states = new Map<string, NonNullable<StaffSessionBody['copies']>>()
  for (const row of await run(em, STAFF_SESSION_QUERIES.copies, [ids])) {
    let state = states.get(row.session_id)
    if (!state) states.set(row.session_id, (state = { queued: 0, ready: 0, failed: [], legacy: 0 }))
    if (row.status === 'failed') state.failed = row.failed ?? []
    else state[row.status] = row.count
  }
  return states
}

/** The cursor is opaque to clients: base64url of `[created_at in microseconds, id]` of a page's last session. */
const encodeCursor = (row: SessionRow) => encodePageCursor([row.created_us, row.id])

const CursorKey = z.tuple([z.int().nonnegative(), Id])

function decodeCursor(cursor: string): SessionKey {
  const key = decodePageCursor(cursor, CursorKey)
  if (!key) throw new AppError('invalid_cursor', 'Invalid cursor: pass the nextCursor of the previous page')
  return { createdUs: key[0], id: key[1] }
}

/**
 * An event's sessions, newest first, a page at a time. A set or status that matches nothing (a
 * set of another event included) is an empty page, as any filter is; only the event must exist.
 */
export async function listStaffSessions(
  deps: ReadDeps,
  filter: { eventId: string; setId?: string; status?: StaffSessionBody['status']; cursor?: string; limit: number },
) {
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor)
  // One more than a page: whether it comes tells if there is a next page.
  const rows = await run(deps.em, ...sessionPageQuery({ ...filter, after, limit: filter.limit + 1 }))
  // Rows prove the event exists; only an empty page needs to ask.
  if (rows.length === 0 && !(await deps.em.findOne(Event, filter.eventId, { fields: ['id'] })))
    throw new AppError('no_such_event', NO_SUCH_EVENT)
  const page = rows.slice(0, filter.limit)
  return {
    sessions: await toStaffSessions(deps, page),
    nextCursor: rows.length > filter.limit ? encodeCursor(page.at(-1)!) : null,
  }
}

export async function getStaffSession(deps: ReadDeps, { sessionId }: { sessionId: string }): Promise<StaffSessionBody> {
  const [session] = await toStaffSessions(deps, await run(deps.em, STAFF_SESSION_QUERIES.one, [sessionId]))
  if (!session) throw new AppError('no_such_session', NO_SUCH_SESSION)
  return session
}

/** One guest's contact details in full, for a member of any role (the audit trail records it). */
export async function showGuestContact({ em, staff }: Pick<AppContext, 'em' | 'staff'>, { guestId }: { guestId: string }) {
  const guest = await em.findOne(SessionGuest, guestId, { fields: ['email', 'phone'] })
  if (!guest) throw new AppError('no_such_guest', 'no such guest')
  if (staff) staff.auditNotes = { ...staff.auditNotes, guests: '1' }
  return { email: guest.email ?? null, phone: guest.phone ?? null }
}

/** As the booth cancels: only an active session (409 otherwise), and the booth then answers 409 for it. */
export async function cancelStaffSession(deps: Pick<AppContext, 'em' | 'config' | 'now'>, { sessionId }: { sessionId: string }) {
  await cancelSession(deps, { sessionId })
  return getStaffSession(deps, { sessionId })
}

/** Deletes a session with its guests' data, then removes its photos from storage. */
export async function deleteStaffSession(
  deps: Pick<AppContext, 'em' | 'orm' | 'storage' | 'logger' | 'config'>,
  { sessionId }: { sessionId: string },
) {
  const deleted = await deps.em.transactional(async (tx) => {
    const counts = await deleteSessions(tx, [sessionId])
    // Thrown inside: the storage prefix queued for an id that names nothing is rolled back.
    if (counts.sessions === 0) throw new AppError('no_such_session', NO_SUCH_SESSION)
    return counts
  })
  await removeDeletedPhotos(deps)
  return { deleted }
}
