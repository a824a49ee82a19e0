/**
 * The sessions module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { type DeletedCounts, deleteSessions, GONE, removeDeletedPhotos } from './delete-sessions.service.js'
export { isLive, leaveActiveState, LIVE, NO_SUCH_SESSION, requireActiveSession } from './session-state.js'
