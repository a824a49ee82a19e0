import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { Deleted, GuestContact, Resent, SessionFilter, SessionPage, SessionStats, StaffSession } from '../schemas/staff.js'
import { badRequestOf, conflictOf, notFoundOf, pathKey, staffChange, staffRead } from './base.js'

const tags = ['Staff']
const sessionParams = z.object({ sessionId: pathKey(EXAMPLE_IDS.session) })

export const staffSessions = {
  list: staffRead
    .route({
      method: 'GET',
      path: '/staff/events/{eventId}/sessions',
      operationId: 'listStaffSessions',
      summary: "An event's sessions, newest first, with their guests and each gallery-link message's delivery state",
      description: 'Filter by set and status; page with `cursor` (the previous page’s `nextCursor`).',
      tags,
    })
    .meta({ role: 'staff' })
    .errors({ ...badRequestOf('invalid_cursor'), ...notFoundOf('no_such_event') })
    .input(SessionFilter)
    .output(SessionPage),

  get: staffRead
    .route({
      method: 'GET',
      path: '/staff/sessions/{sessionId}',
      operationId: 'getStaffSession',
      summary: 'One session with its guests and messages',
      tags,
    })
    .meta({ role: 'staff' })
    .errors(notFoundOf('no_such_session'))
    .input(sessionParams)
    .output(StaffSession),

  guestContact: staffRead
    .route({
      method: 'GET',
      path: '/staff/guests/{guestId}/contact',
      operationId: 'getGuestContact',
      summary: "One guest's email and phone in full (the staff role sees them masked elsewhere); recorded in the audit trail",
      tags,
    })
    .meta({ role: 'staff' })
    .errors(notFoundOf('no_such_guest'))
    .input(z.object({ guestId: pathKey(EXAMPLE_IDS.guest) }))
    .output(GuestContact),

  stats: staffRead
    .route({
      method: 'GET',
      path: '/staff/sessions/{sessionId}/stats',
      operationId: 'getSessionStats',
      summary: "A session's numbers: views, shares by channel, downloads, zips, guests and messages",
      tags,
    })
    .meta({ role: 'staff' })
    .errors(notFoundOf('no_such_session'))
    .input(sessionParams)
    .output(SessionStats),

  resend: staffChange
    .route({
      method: 'POST',
      path: '/staff/sessions/{sessionId}/resend',
      operationId: 'resendGalleryLinks',
      summary: 'Send the gallery link to every guest again, by email and SMS',
      description:
        'Queues new messages. A guest and channel with a message still waiting, or sent within the last minute, is skipped, so a second click queues nothing. An address on the suppression list is not sent to: its message is recorded `suppressed` and counted in `suppressed`. 409 unless the session is a live gallery (completed, with photos).',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'staff' })
    .errors({ ...notFoundOf('no_such_session'), ...conflictOf('session_not_live') })
    .input(z.object({ params: sessionParams }))
    .output(Resent),

  cancel: staffChange
    .route({
      method: 'POST',
      path: '/staff/sessions/{sessionId}/cancel',
      operationId: 'cancelStaffSession',
      summary: 'Cancel an active session (the booth then answers 409 for it)',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'staff' })
    .errors({ ...notFoundOf('no_such_session'), ...conflictOf('session_not_active') })
    .input(z.object({ params: sessionParams }))
    .output(StaffSession),

  delete: staffChange
    .route({
      method: 'DELETE',
      path: '/staff/sessions/{sessionId}',
      operationId: 'deleteSession',
      summary: 'Delete a session: its photos leave storage and its guests’ data is erased',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors(notFoundOf('no_such_session'))
    .input(z.object({ params: sessionParams }))
    .output(Deleted),
}
