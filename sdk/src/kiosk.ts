/**
 * The kiosk's entry, `@photobooth/sdk/kiosk`: a client of the kiosk's routes only (its bundle
 * carries no other route), with the errors and helpers a kiosk app uses.
 */
import { connect, type ClientOptions } from './client.js'
import routes from './generated/kiosk-routes.json' with { type: 'json' }
import type { PhotoBoothClient } from './index.js'

export { isDefinedError, safe } from '@orpc/client'
export type { ClientOptions } from './client.js'
export { ApiError, errorCodeOf, isApiError, NetworkError, TimeoutError } from './errors.js'
export type { ErrorCode } from './error-codes.js'
export type { ErrorBody, ValidationErrorBody, ValidationIssue } from './errors.js'
export type { CallContext } from './fetch-link.js'
export type { RouteError, RouteErrorCode } from './index.js'
export { galleryLink } from './urls.js'

/** The kiosk's routes: `getContext` and `registerGuests`, typed as in `createClient`'s client. */
export type KioskClient = Pick<PhotoBoothClient, 'kiosk'>

/** A client for a kiosk app: `createKioskClient({ baseUrl }).kiosk.registerGuests(…)`. */
export function createKioskClient(options: Omit<ClientOptions, 'boothKey' | 'staffCookies' | 'uploadUrl'>): KioskClient {
  return connect<KioskClient>(routes, options)
}
