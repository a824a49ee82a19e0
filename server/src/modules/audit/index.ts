/**
 * The audit module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { noteCreations } from './audit-notes.js'
export { accountAuditTrail, auditSignIn, auditTrail } from './audit.middleware.js'
export { staffAuditRouter } from './audit.router.js'
export { pruneAuditEvents } from './audit.service.js'
