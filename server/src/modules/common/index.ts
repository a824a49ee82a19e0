/**
 * The common module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { deriveLabel, fullName, splitName } from './guest-names.js'
export { DEFAULT_PHONE_COUNTRY, isPhoneCountry, queriedPhone, toE164 } from './phone.js'
