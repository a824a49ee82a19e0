import { KIOSK_APP_PATH } from '../../config.js'
import type { StaticApp } from '../../http/static-apps.js'

/**
 * The kiosk app (apps/kiosk), served at `/kiosk/<event slug>/<set slug>`. Its page comes with a
 * preload of the kiosk context it asks for first, so that a tablet's first start (no service worker
 * yet) waits for one round trip less.
 */
export const KIOSK_APP: StaticApp = {
  path: KIOSK_APP_PATH,
  package: '@photobooth/kiosk',
  preload: (page) => {
    const slugs = /^\/([\w-]+)\/([\w-]+)$/.exec(page)
    return slugs ? `/events/${slugs[1]}/sets/${slugs[2]}` : undefined
  },
}
