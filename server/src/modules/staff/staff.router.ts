import { staffBoothKeysRouter } from '../booth-keys/booth-keys.staff-router.js'
import { staffMessagesRouter } from '../delivery/messages.staff-router.js'
import { staffEventsRouter, staffSetsRouter } from '../events/events.staff-router.js'
import { staffSessionsRouter } from '../sessions/sessions.staff-router.js'
import { staffMembersRouter } from './staff-members.router.js'

/** Every /staff procedure, each area's handlers in its own module. */
export const staffRouter = {
  events: staffEventsRouter,
  sets: staffSetsRouter,
  boothKeys: staffBoothKeysRouter,
  sessions: staffSessionsRouter,
  messages: staffMessagesRouter,
  members: staffMembersRouter,
}
