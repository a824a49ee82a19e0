import { boothContract } from './booth.js'
import { staffAudit } from './staff-audit.js'
import { contact } from './contact.js'
import { gallery } from './gallery.js'
import { galleryFiles } from './gallery-files.js'
import { kiosk } from './kiosk.js'
import { operations } from './operations.js'
import { staffBoothKeys } from './staff-booth-keys.js'
import { staffEvents, staffSets } from './staff-events.js'
import { staffExports } from './staff-exports.js'
import { staffAuth, staffMembers } from './staff-members.js'
import { staffMessages } from './staff-messages.js'
import { staffPeople } from './staff-people.js'
import { staffSessions } from './staff-sessions.js'
import { tracking } from './tracking.js'
import { webhooks } from './webhooks.js'

const staff = {
  events: staffEvents,
  sets: staffSets,
  boothKeys: staffBoothKeys,
  sessions: staffSessions,
  messages: staffMessages,
  members: staffMembers,
  people: staffPeople,
  audit: staffAudit,
}

/**
 * What oRPC's handler serves: the server implements exactly this. The rest of the contract is
 * answered by Express, each for a reason written in docs/architecture.md ("What Express answers"):
 * the gallery's reads and files, the guests' CSV, Better Auth's sign-in routes but the current session.
 */
export const servedContract = {
  kiosk,
  booth: boothContract,
  tracking,
  contact,
  staff: { ...staff, auth: { getSession: staffAuth.getSession } },
  operations,
  webhooks,
}

/** The whole API: the one source of the OpenAPI document and the SDK. */
export const contract = {
  kiosk,
  gallery: { ...gallery, ...galleryFiles },
  booth: boothContract,
  tracking,
  contact,
  staff: { ...staff, events: { ...staffEvents, ...staffExports }, auth: staffAuth },
  operations,
  webhooks,
}

export type { EdgePolicy } from './base.js'
export { takesIdempotencyKey } from './base.js'
export type Contract = typeof contract
export type ServedContract = typeof servedContract

/**
 * The SDK's per-area entries (`@photobooth/sdk/kiosk`, `/booth`, `/staff`) and the contract's areas
 * each ships: a kiosk app carries neither the staff's routes nor the booth's.
 */
export const SDK_AREAS = {
  kiosk: ['kiosk'],
  booth: ['booth'],
  staff: ['staff'],
} as const satisfies Record<string, readonly (keyof Contract)[]>
export { ErrorCode, ERROR_CODE_LIST, ERROR_CODE_TABLE, genericErrorCode, isErrorCode } from './error-codes.js'
