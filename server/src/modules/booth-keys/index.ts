/**
 * The booth-keys module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { boothAuthentication, boothOf } from './booth-auth.middleware.js'
export { staffBoothKeysRouter } from './booth-keys.router.js'
export { type BoothCaller, createBoothKey, listBoothKeys, revokeBoothKey } from './booth-keys.service.js'
