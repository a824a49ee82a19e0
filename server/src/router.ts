import { boothRouter } from './modules/booth/booth.router.js'
import { contactRouter } from './modules/contact/contact.router.js'
import { galleryRouter } from './modules/gallery/gallery.router.js'
import { kioskRouter } from './modules/kiosk/kiosk.router.js'
import { staffRouter } from './modules/staff/staff.router.js'
import { trackingRouter } from './modules/tracking/tracking.router.js'
import { pub } from './orpc.js'

export const router = pub.router({
  kiosk: kioskRouter,
  gallery: galleryRouter,
  booth: boothRouter,
  tracking: trackingRouter,
  contact: contactRouter,
  staff: staffRouter,
})
