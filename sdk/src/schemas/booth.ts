import { z } from 'zod'

import { EpochMillis, Id } from './common.js'
import { GalleryEventSummary, SetSummary } from './event.js'
import { EXAMPLE_GALLERY_URL, EXAMPLE_IDS, EXAMPLE_PHOTO, EXAMPLE_PHOTO_KEY, EXAMPLE_UPLOAD_TARGET } from './examples.js'
import { Photo } from './photo.js'

/** Photos one session may hold. */
export const MAX_PHOTOS_PER_SESSION = 60

export const BoothEvent = GalleryEventSummary.extend({
  isPrivate: z.boolean().describe('Private events hide their index page; booths still work them'),
  sets: z.array(SetSummary),
})

export const QueuedGuest = z.object({
  name: z.string().describe('Display name: first name and the rest'),
  firstName: z.string(),
  lastName: z.string(),
})

export const QueuedSession = z.object({
  id: Id,
  label: z.string(),
  createdAt: EpochMillis,
  guests: z.array(QueuedGuest),
})

/** How long a claim lasts unless renewed (claiming the session again) or released: 15 minutes. */
export const DEFAULT_CLAIM_SECONDS = 900

/**
 * Which booth holds a session: its key and, since one key may serve several booths, a name the booth
 * gives itself. Two claims by the same key and holder are the same claimant (a restart renews its own).
 */
export const ClaimHolder = z
  .string()
  .min(1)
  .max(100)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'Control characters are not allowed')
  .describe('The claiming booth’s own name, for booths sharing one key (default: the key alone)')

export const ClaimRequest = z
  .strictObject({
    holder: ClaimHolder.optional(),
    ttlSeconds: z
      .int()
      .min(30)
      .max(86_400)
      .default(DEFAULT_CLAIM_SECONDS)
      .describe('How long the claim lasts unless renewed or released, in seconds (30 to 86,400; default 900)'),
  })
  .meta({ examples: [{ holder: 'Mirror booth 1', ttlSeconds: 900 }] })

export const ReleaseRequest = z.strictObject({ holder: ClaimHolder.optional() }).meta({ examples: [{ holder: 'Mirror booth 1' }] })

export const SessionClaim = z.object({
  holder: z.string().nullable().describe('The name the booth gave itself, or null for the key alone'),
  claimedAt: EpochMillis,
  expiresAt: EpochMillis.describe('Until then, the session is out of other booths’ queues; renew by claiming it again'),
})

export const ClaimedSession = QueuedSession.extend({ claim: SessionClaim })

/** A storage key under the session's own prefix, as handed out by the upload route. */
export const PhotoKey = z.string().min(1).max(200).describe('A key returned by the upload route: sessions/<session id>/<photo id>.jpg')

export const UploadTarget = z
  .object({
    key: PhotoKey,
    url: z.url().describe('Presigned: PUT the JPEG bytes here, answered by the storage service (XML errors)'),
    method: z.literal('PUT'),
    headers: z
      .record(z.string(), z.string())
      .describe(
        'Send exactly these: the signature binds Content-Type: image/jpeg and If-None-Match: *, so the URL can create its photo but never replace one (412 PreconditionFailed)',
      ),
    expiresAt: EpochMillis,
  })
  .meta({ examples: [EXAMPLE_UPLOAD_TARGET] })

export const UploadRequest = z
  .strictObject({
    count: z.int().min(1).max(MAX_PHOTOS_PER_SESSION).describe('How many upload targets to hand out'),
  })
  .meta({ examples: [{ count: 4 }] })

export const CompleteRequest = z
  .strictObject({
    photos: z
      .array(PhotoKey)
      .max(MAX_PHOTOS_PER_SESSION)
      .describe("Uploaded keys in gallery order, each once, all under this session's own prefix; may be empty"),
  })
  .meta({ examples: [{ photos: [EXAMPLE_PHOTO_KEY] }] })

export const CompletedSession = z
  .object({
    id: Id,
    status: z.literal('completed'),
    galleryUrl: z.url().describe('Sent to every guest; live when the session has photos'),
    photos: z.array(Photo),
  })
  .meta({ examples: [{ id: EXAMPLE_IDS.session, status: 'completed', galleryUrl: EXAMPLE_GALLERY_URL, photos: [EXAMPLE_PHOTO] }] })

export const CancelledSession = z
  .object({ id: Id, status: z.literal('cancelled') })
  .meta({ examples: [{ id: EXAMPLE_IDS.session, status: 'cancelled' }] })
