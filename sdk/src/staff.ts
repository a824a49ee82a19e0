/**
 * The staff's entry, `@photobooth/sdk/staff`: a client of the staff routes (sign-in included) for
 * dashboards and scripts, without the kiosk's, the booth's or the gallery's.
 */
import { connect, type ClientOptions } from './client.js'
import routes from './generated/staff-routes.json' with { type: 'json' }
import type { PhotoBoothClient } from './index.js'
import { withStaffCookie } from './staff-cookie.js'

export { isDefinedError, safe } from '@orpc/client'
export type { ClientOptions } from './client.js'
export { ApiError, errorCodeOf, isApiError, NetworkError, TimeoutError } from './errors.js'
export type { ErrorCode } from './error-codes.js'
export type { ErrorBody, ValidationErrorBody, ValidationIssue } from './errors.js'
export type { CallContext } from './fetch-link.js'
export type { RouteError, RouteErrorCode } from './index.js'

/** The staff routes, typed as in `createClient`'s client. */
export type StaffClient = Pick<PhotoBoothClient, 'staff'>

/** A client for staff tools: in Node, `createStaffClient({ baseUrl, staffCookies: true })`. */
export function createStaffClient(options: Omit<ClientOptions, 'boothKey' | 'uploadUrl'>): StaffClient {
  return connect<StaffClient>(routes, options, { keepStaffSession: withStaffCookie })
}
