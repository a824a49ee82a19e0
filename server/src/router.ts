import { boothRouter } from './modules/booth/index.js'
import { staffBoothKeysRouter } from './modules/booth-keys/index.js'
import { contactRouter } from './modules/contact/index.js'
import { staffMessagesRouter } from './modules/messages/index.js'
import { staffEventsRouter, staffSetsRouter } from './modules/staff-events/index.js'
import { kioskRouter } from './modules/kiosk/index.js'
import { staffMembersRouter } from './modules/members/index.js'
import { operationsRouter } from './modules/operations/index.js'
import { staffPeopleRouter } from './modules/people/index.js'
import { staffAuditRouter } from './modules/audit/index.js'
import { staffSessionsRouter } from './modules/staff-sessions/index.js'
import { staffAuthRouter } from './modules/staff/index.js'
import { trackingRouter } from './modules/tracking/index.js'
import { webhooksRouter } from './modules/webhooks/index.js'
import { api } from './orpc.js'

/** Every JSON route, keyed as the contract is: each area's handlers are in its module's `*.router.ts` (docs/architecture.md maps them). */
export const router = api.router({
  kiosk: kioskRouter,
  booth: boothRouter,
  tracking: trackingRouter,
  contact: contactRouter,
  operations: operationsRouter,
  webhooks: webhooksRouter,
  staff: {
    events: staffEventsRouter,
    sets: staffSetsRouter,
    boothKeys: staffBoothKeysRouter,
    sessions: staffSessionsRouter,
    messages: staffMessagesRouter,
    members: staffMembersRouter,
    people: staffPeopleRouter,
    audit: staffAuditRouter,
    auth: staffAuthRouter,
  },
})
