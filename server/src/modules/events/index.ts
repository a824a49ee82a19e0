/**
 * The events module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.cjs, refuses a deep import from outside).
 */
export { brandingOfRow, type BrandingRow, type Language } from './branding.js'
export { DEMO, seedDemo } from './demo-event.js'
export { eventLogoRoutes } from './event-logo.routes.js'
export { BRANDING_COLUMNS, KIOSK_CONTEXT, type KioskContextRow, REGISTRATION_RULES, type RegistrationRulesRow } from './events.queries.js'
export { NO_SUCH_EVENT, NO_SUCH_SET, privacyNoticeOf } from './events.service.js'
export { NOTICE_PUBLISHED } from './privacy-notices.queries.js'
