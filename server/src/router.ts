import { boothRouter } from './modules/booth/booth.router.js'
import { staffBoothKeysRouter } from './modules/booth-keys/booth-keys.router.js'
import { contactRouter } from './modules/contact/contact.router.js'
import { staffMessagesRouter } from './modules/messages/delivery.router.js'
import { staffEventsRouter, staffSetsRouter } from './modules/staff-events/staff-events.router.js'
import { galleryRouter } from './modules/gallery/gallery.router.js'
import { kioskRouter } from './modules/kiosk/kiosk.router.js'
import { staffMembersRouter } from './modules/members/members.router.js'
import { staffPeopleRouter } from './modules/people/people.router.js'
import { staffAuditRouter } from './modules/audit/audit.router.js'
import { staffSessionsRouter } from './modules/staff-sessions/staff-sessions.router.js'
import { trackingRouter } from './modules/tracking/tracking.router.js'
import { api } from './orpc.js'

/** Every JSON route, keyed as the contract is: each area's handlers are in its module's `*.router.ts` (docs/architecture.md maps them). */
export const router = api.router({
  kiosk: kioskRouter,
  gallery: galleryRouter,
  booth: boothRouter,
  tracking: trackingRouter,
  contact: contactRouter,
  staff: {
    events: staffEventsRouter,
    sets: staffSetsRouter,
    boothKeys: staffBoothKeysRouter,
    sessions: staffSessionsRouter,
    messages: staffMessagesRouter,
    members: staffMembersRouter,
    people: staffPeopleRouter,
    audit: staffAuditRouter,
  },
})
