import { boothContract } from './booth.js'
import { gallery } from './gallery.js'
import { kiosk } from './kiosk.js'

/** The whole API: the one source of the server's routes, the OpenAPI document and the SDK. */
export const contract = { kiosk, gallery, booth: boothContract }

export type Contract = typeof contract
