/**
 * The gallery-pages module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { guestPages } from './guest-pages.routes.js'
