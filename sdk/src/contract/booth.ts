import { z } from 'zod'

import {
  BoothEvent,
  CancelledSession,
  ClaimedSession,
  ClaimHolder,
  ClaimRequest,
  CompletedSession,
  CompleteRequest,
  QueuedSession,
  ReleaseRequest,
  UploadRequest,
  UploadTarget,
} from '../schemas/booth.js'
import { Id } from '../schemas/common.js'
import { SetSummary } from '../schemas/event.js'
import { EXAMPLE_GALLERY_EVENT, EXAMPLE_IDS, EXAMPLE_SET, EXAMPLE_UPLOAD_TARGET } from '../schemas/examples.js'
import { badRequestOf, base, idempotencyErrors, notFoundOf, pathKey, storageUnavailableOf, withCodes } from './base.js'
import { ErrorCode } from './error-codes.js'

const tags = ['Booth']

/** Every booth route needs `Authorization: Bearer <booth key>`; failures answer plain text `Unauthorized`. */
const booth = base.errors({
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
})

/** A set, or a session, that does not exist or that the booth key's events do not hold. */
const noSuchSet = notFoundOf('no_such_set')
const noSuchSession = notFoundOf('no_such_session')
const conflict = { CONFLICT: withCodes({ status: 409, message: 'The session is no longer active' }, 'session_not_active') } as const
/** Every booth change takes an Idempotency-Key: a reused key is 422 (completion's own 422 says more). */
const keyReused = { UNPROCESSABLE_CONTENT: idempotencyErrors.UNPROCESSABLE_CONTENT } as const
const storageMissing = storageUnavailableOf('storage_not_configured')
const sessionParams = z.object({ params: z.object({ sessionId: pathKey(EXAMPLE_IDS.session) }) })
const claimConflict = {
  CONFLICT: withCodes(
    { status: 409, message: 'The session is no longer active, or another booth holds it' },
    'session_not_active',
    'session_claimed',
  ),
} as const
const EXAMPLE_QUEUED_SESSION = {
  id: EXAMPLE_IDS.session,
  label: 'Ada & Grace',
  createdAt: 1782929052000,
  guests: [
    { name: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' },
    { name: 'Grace Hopper', firstName: 'Grace', lastName: 'Hopper' },
  ],
}
const EXAMPLE_CLAIMED_SESSION = {
  ...EXAMPLE_QUEUED_SESSION,
  claim: { holder: 'Mirror booth 1', claimedAt: 1782929112000, expiresAt: 1782930012000 },
}

export const boothContract = {
  listEvents: booth
    .route({
      method: 'GET',
      path: '/booth/events',
      operationId: 'listBoothEvents',
      summary: 'The events a booth can work, private ones included, with their sets',
      description: 'Newest start first.',
      tags,
    })
    .output(
      z
        .object({ events: z.array(BoothEvent) })
        .meta({ examples: [{ events: [{ ...EXAMPLE_GALLERY_EVENT, isPrivate: false, sets: [EXAMPLE_SET] }] }] }),
    ),

  listQueue: booth
    .route({
      method: 'GET',
      path: '/booth/sets/{setId}/sessions',
      operationId: 'listBoothQueue',
      summary: "A set's queue: its active sessions, oldest first, with the guests' names",
      tags,
    })
    .errors(noSuchSet)
    .input(
      z.object({
        setId: pathKey(EXAMPLE_IDS.set),
        holder: ClaimHolder.optional().describe('This booth’s name: its own claims stay listed (those of other booths never are)'),
      }),
    )
    .output(
      z.object({ set: SetSummary, sessions: z.array(QueuedSession) }).meta({
        examples: [{ set: EXAMPLE_SET, sessions: [EXAMPLE_QUEUED_SESSION] }],
      }),
    ),

  claimNext: booth
    .route({
      method: 'POST',
      path: '/booth/sets/{setId}/claims',
      operationId: 'claimNextSession',
      summary: "Claim the next session of a set's queue for this booth",
      description:
        "The oldest active session that no other booth holds, claimed for `ttlSeconds`: until then, or until released, completed or cancelled, it is out of other booths' queues (staff see the claim). Booths sharing one key tell themselves apart by `holder`. `session` is null when nobody waits. Sent again with its Idempotency-Key, it answers the same session.",
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...noSuchSet, ...keyReused, CONFLICT: idempotencyErrors.CONFLICT })
    .input(z.object({ params: z.object({ setId: pathKey(EXAMPLE_IDS.set) }), body: ClaimRequest }))
    .output(z.object({ session: ClaimedSession.nullable() }).meta({ examples: [{ session: EXAMPLE_CLAIMED_SESSION }, { session: null }] })),

  claim: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/claim',
      operationId: 'claimSession',
      summary: 'Claim a named session (one whose id a guest brought on a QR code), or renew this booth’s claim',
      description:
        'Answers 409 `session_claimed` while another booth holds it (until its claim lapses), and 409 `session_not_active` once it is completed or cancelled.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...noSuchSession, ...claimConflict, ...keyReused })
    .input(sessionParams.extend({ body: ClaimRequest }))
    .output(ClaimedSession.meta({ examples: [EXAMPLE_CLAIMED_SESSION] })),

  release: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/release',
      operationId: 'releaseSession',
      summary: "Release this booth's claim: the session goes back to the queue, in its place",
      description:
        '`released` is false when this booth held no claim on it (releasing twice is harmless); 409 `session_claimed` when another booth holds it.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...noSuchSession, ...claimConflict, ...keyReused })
    .input(sessionParams.extend({ body: ReleaseRequest }))
    .output(z.object({ id: Id, released: z.boolean() }).meta({ examples: [{ id: EXAMPLE_IDS.session, released: true }] })),

  createUploads: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/uploads',
      operationId: 'createUploads',
      summary: 'Presigned JPEG upload targets under the session’s own prefix',
      description:
        'PUT each photo to its `url` with exactly its `headers` before `expiresAt` (15 minutes). A photo may be at most 25 MB (26,214,400 bytes): the local bucket refuses a larger upload with 400 `EntityTooLarge`. Storage answers those uploads itself, in XML; a 403 there is almost always a Content-Type that is not `image/jpeg`. Answers 409 when the session is no longer active.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...noSuchSession, ...conflict, ...storageMissing, ...keyReused })
    .input(sessionParams.extend({ body: UploadRequest }))
    .output(z.object({ uploads: z.array(UploadTarget) }).meta({ examples: [{ uploads: [EXAMPLE_UPLOAD_TARGET] }] })),

  complete: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/complete',
      operationId: 'completeSession',
      summary: 'Complete an active session with its uploaded photos, in gallery order',
      description:
        'Every key must be one the upload route handed out for this session, each at most once: a key outside `sessions/<session id>/` answers 400 `{ "error": "Photo keys outside this session: <keys>" }`, a repeated one 400 `{ "error": "Photo keys given more than once: <keys>" }`. Every key must be in storage, else 422 with `missing` listing exactly those keys; every object must be a JPEG, else 422 with `notJpeg`; either way nothing is written. On success the photos are recorded with their dimensions and the gallery link is queued for every guest, by email and by SMS. Completing or cancelling again answers 409.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({
      ...badRequestOf('photo_keys_foreign', 'photo_keys_repeated'),
      ...noSuchSession,
      ...conflict,
      ...storageUnavailableOf('storage_not_configured', 'storage_unavailable'),
      UNPROCESSABLE_CONTENT: {
        status: 422,
        message: 'Photo keys not in storage',
        // Loose, and naming its code: the server validates a thrown error's data against this, and a strict object would drop `code`.
        data: z.looseObject({
          code: ErrorCode.extract(['photo_keys_missing', 'photos_not_jpeg']),
          missing: z.array(z.string()).optional(),
          notJpeg: z.array(z.string()).optional(),
        }),
        codes: ['photo_keys_missing', 'photos_not_jpeg'] as const,
      },
    })
    .input(sessionParams.extend({ body: CompleteRequest }))
    .output(CompletedSession),

  cancel: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/cancel',
      operationId: 'cancelSession',
      summary: 'Cancel an active session',
      description: 'Completing or cancelling a session that is no longer active answers 409.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...noSuchSession, ...conflict, ...keyReused })
    .input(sessionParams)
    .output(CancelledSession),
}
