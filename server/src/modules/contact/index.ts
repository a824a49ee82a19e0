/**
 * The contact module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { type ContactFormSource, type ContactLabels, createContactLabels } from './contact-labels.js'
export { createConsoleContactMailer, createPostmarkContactMailer } from './contact-mailers.js'
export { contactRouter } from './contact.router.js'
export { type ContactMailer } from './contact.service.js'
