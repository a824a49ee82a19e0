/**
 * The tracking module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { eventStats, sessionStats } from './stats.service.js'
export { trackingRouter } from './tracking.router.js'
export { recordTracking } from './tracking.service.js'
