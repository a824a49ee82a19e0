/**
 * The idempotency module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, takesIdempotencyKey } from './idempotency-routes.js'
export {
  idempotencyKeys,
  KEY_STILL_RUNNING,
  KEY_USED_WITH_ANOTHER_BODY,
  pruneExpiredKeys,
  storeIdempotentAnswer,
} from './idempotency.middleware.js'
export { FORGET_SESSIONS } from './idempotency.queries.js'
