import { boothContract } from './booth.js'
import { contact } from './contact.js'
import { gallery } from './gallery.js'
import { galleryFiles } from './gallery-files.js'
import { kiosk } from './kiosk.js'
import { tracking } from './tracking.js'

/** What oRPC's handler serves, every JSON route: the server implements exactly this. */
export const servedContract = { kiosk, gallery, booth: boothContract, tracking, contact }

/** The whole API, the files Express streams included: the one source of the OpenAPI document and the SDK. */
export const contract = { ...servedContract, gallery: { ...gallery, ...galleryFiles } }

export type { EdgePolicy } from './base.js'
export type Contract = typeof contract
export type ServedContract = typeof servedContract
