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
]

export type FromService = { type: 'ready'; url: string; refs: Refs } | { type: 'rss'; rss: number }

export type ToService = { type: 'rss' }
