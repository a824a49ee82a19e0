/**
 * The staff's entry, `@photobooth/sdk/staff`: a client of the staff routes (sign-in included) for
 * dashboards and scripts, without the kiosk's, the booth's or the gallery's.
 */
import { connect, type ClientOptions } from './client.js'
import routes from './generated/staff-routes.json' with { type: 'json' }
import type { PhotoBoothClient } from './index.js'
import { withStaffCookie } from './staff-cookie.js'

/** The staff routes, typed as in `createClient`'s client. */
export * from './entry-common.js'
export type StaffClient = Pick<PhotoBoothClient, 'staff'>

/** A client for staff tools: in Node, `createStaffClient({ baseUrl, staffCookies: true })`. */
export function createStaffClient(options: Omit<ClientOptions, 'boothKey' | 'uploadUrl'>): StaffClient {
  return connect<StaffClient>(routes, options, { keepStaffSession: withStaffCookie })
}
