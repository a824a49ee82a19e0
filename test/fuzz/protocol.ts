/** The IPC messages between the fuzzer and the service process (`fuzz-service.ts`). */

/** Real rows of the service's database, referred to in generated requests as `$[name]`. */
export type Refs = {
  eventSlug: string
  eventId: string
  privateEventSlug: string
  setSlug: string
  setId: string
  otherSetId: string
  /** A live gallery: completed with real JPEGs in the local bucket. */
  liveSession: string
  photoId: string
  photoKey: string
  activeSession: string
  cancelledSession: string
  /** Completed with no photos: no gallery. */
  emptySession: string
  boothKey: string
  revokedBoothKey: string
  /** A presigned upload target of the active session: `PUT /photos/<uploadKey>?<uploadQuery>`. */
  uploadKey: string
  uploadQuery: string
  /** The service's own origin (its PUBLIC_URL's): the one a staff change must name. */
  origin: string
  /** The staff member the fuzzer is signed in as, and the `Cookie` value of that session (`photobooth.session_token=<token>.<signature>`). */
  staffMemberId: string
  staffEmail: string
  staffPassword: string
  staffCookie: string
  /** That session's token without its signature: as a cookie, it must not pass. */
  staffToken: string
  /** A second member, signed in: removable, and the session that sign-outs end. */
  spareMemberId: string
  spareCookie: string
  spareToken: string
  /** Members signed in as `manager` and as `staff`: the role check on every staff route. */
  managerCookie: string
  staffRoleCookie: string
  /** A real `nextCursor` of the first event's sessions. */
  sessionsCursor: string
  /** An event that staff changes may change (see fuzz-service.ts), a set of it, a live gallery and an active session of that set. */
  scratchEventId: string
  scratchSetId: string
  scratchLiveSession: string
  scratchActiveSession: string
  /** Gallery-link messages of the scratch live gallery: one failed (retried once), one pending. */
  failedMessageId: string
  pendingMessageId: string
  /** The public parts of a booth key that no request uses (revocable) and of the revoked one. */
  spareKeyId: string
  revokedKeyId: string
  /** Rows that staff deletions may delete, once: an event, a set of the scratch event, a live gallery of the scratch set. */
  doomedEventId: string
  doomedSetId: string
  doomedSession: string
}

export type RefName = keyof Refs

export const REF_NAMES: readonly RefName[] = [
  'eventSlug',
  'eventId',
  'privateEventSlug',
  'setSlug',
  'setId',
  'otherSetId',
  'liveSession',
  'photoId',
  'photoKey',
  'activeSession',
  'cancelledSession',
  'emptySession',
  'boothKey',
  'revokedBoothKey',
  'uploadKey',
  'uploadQuery',
  'origin',
  'staffMemberId',
  'staffEmail',
  'staffPassword',
  'staffCookie',
  'staffToken',
  'spareMemberId',
  'spareCookie',
  'spareToken',
  'managerCookie',
  'staffRoleCookie',
  'sessionsCursor',
  'scratchEventId',
  'scratchSetId',
  'scratchLiveSession',
  'scratchActiveSession',
  'failedMessageId',
  'pendingMessageId',
  'spareKeyId',
  'revokedKeyId',
  'doomedEventId',
  'doomedSetId',
  'doomedSession',
]

export type FromService = { type: 'ready'; url: string; refs: Refs } | { type: 'rss'; rss: number }

export type ToService = { type: 'rss' }
