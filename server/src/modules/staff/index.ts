/**
 * The staff module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { AUTH_TABLES } from './auth-schema.js'
export { resolveAuthSecret } from './auth-secret.js'
export { staffAuthRouter } from './auth.router.js'
export { authRoutes, type SignInRecorder } from './auth.routes.js'
export { type AuthService, createAuth, type StaffAuth } from './auth.js'
export { weakPasswordReason } from './password-strength.js'
export { requireOwnerFor, roleOf, roleRefusal, type StaffRole } from './roles.js'
export { staffApi } from './staff-api.js'
export {
  CHANGE_PASSWORD_FIRST,
  checkOrigin,
  SET_UP_TWO_FACTOR,
  STAFF_UNAUTHORIZED,
  staffAuthentication,
  type StaffCaller,
  staffGates,
  staffOf,
} from './staff-auth.middleware.js'
export { getTeamSettings, updateTeamSettings } from './team.service.js'
