/**
 * The kiosk's entry, `@photobooth/sdk/kiosk`: a client of the kiosk's routes only (its bundle
 * carries no other route), with the errors and helpers a kiosk app uses.
 */
import { connect, type ClientOptions } from './client.js'
import routes from './generated/kiosk-routes.json' with { type: 'json' }
import type { PhotoBoothClient } from './index.js'

export * from './entry-common.js'
export { galleryLink } from './urls.js'

/** The kiosk's routes: `getContext` and `registerGuests`, typed as in `createClient`'s client. */
export type KioskClient = Pick<PhotoBoothClient, 'kiosk'>

/** A client for a kiosk app: `createKioskClient({ baseUrl }).kiosk.registerGuests(…)`. */
export function createKioskClient(options: Omit<ClientOptions, 'boothKey' | 'staffCookies' | 'uploadUrl'>): KioskClient {
  return connect<KioskClient>(routes, options)
}
