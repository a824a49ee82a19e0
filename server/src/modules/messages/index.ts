/**
 * The messages module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { createConsoleTransport, masked } from './console-transport.js'
export { staffMessagesRouter } from './delivery.router.js'
export { type Dispatcher, type DispatcherSettings, NOT_CONFIGURED, startDispatcher } from './dispatcher.js'
export { enqueueGalleryLinks, notifyDispatchers, OUTBOX_CHANNEL, resendGalleryLinks } from './outbox.service.js'
export { createPostmarkClient, createPostmarkTransport, type PostmarkSettings } from './postmark-transport.js'
export { messagesByGuest } from './staff-messages.service.js'
export { lift, NOT_SUPPRESSED, suppress } from './suppressions.service.js'
export { type Transports } from './transport.js'
export { createTwilioTransport, TWILIO_UNSUBSCRIBED, type TwilioSettings } from './twilio-transport.js'
