/**
 * The events module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { brandingOf, brandingOfRow, type BrandingRow, type Language, makeLogo } from './branding.js'
export { DEMO, seedDemo } from './demo-event.js'
export { eventLogoRoutes } from './event-logo.routes.js'
export {
  BRANDING_COLUMNS,
  BRANDING_ROW,
  KIOSK_CONTEXT,
  type KioskContextRow,
  REGISTRATION_RULES,
  type RegistrationRulesRow,
  TOUCH_EVENT,
} from './events.queries.js'
export { createEvent, NO_SUCH_EVENT, NO_SUCH_SET, privacyNoticeOf } from './events.service.js'
export { NOTICE_PUBLISHED } from './privacy-notices.queries.js'
