/**
 * The booth module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { boothRouter } from './booth.router.js'
export { cancelSession } from './cancel-session.service.js'
export { liveClaims } from './claims.service.js'
export { revokedUploads } from './uploads.service.js'
