import { boothContract } from './booth.js'
import { gallery } from './gallery.js'
import { kiosk } from './kiosk.js'
import { publicWrites } from './public-writes.js'

/** The whole API: the one source of the server's routes, the OpenAPI document and the SDK. */
export const contract = { kiosk, gallery, booth: boothContract, tracking: { track: publicWrites.track }, contact: { submit: publicWrites.contact } }

export type Contract = typeof contract
