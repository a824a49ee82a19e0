import { z } from 'zod'

import {
  BoothEvent,
  CancelledSession,
  CompletedSession,
  CompleteRequest,
  QueuedSession,
  UploadRequest,
  UploadTarget,
} from '../schemas/booth.js'
import { PathKey } from '../schemas/common.js'
import { SetSummary } from '../schemas/event.js'
import { base, notFound } from './base.js'

const tags = ['Booth']

/** Every booth route needs `Authorization: Bearer <booth key>`; failures answer plain text `Unauthorized`. */
const booth = base.errors({
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  ...notFound,
})

const conflict = { CONFLICT: { status: 409, message: 'The session is no longer active' } } as const
const storageMissing = { SERVICE_UNAVAILABLE: { status: 503, message: 'Photo storage is not configured' } } as const
const sessionParams = z.object({ params: z.object({ sessionId: PathKey }) })

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
    .output(z.object({ events: z.array(BoothEvent) })),

  listQueue: booth
    .route({
      method: 'GET',
      path: '/booth/sets/{setId}/sessions',
      operationId: 'listBoothQueue',
      summary: "A set's queue: its active sessions, oldest first, with the guests' names",
      tags,
    })
    .input(z.object({ setId: PathKey }))
    .output(z.object({ set: SetSummary, sessions: z.array(QueuedSession) })),

  createUploads: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/uploads',
      operationId: 'createUploads',
      summary: 'Presigned JPEG upload targets under the session’s own prefix',
      description:
        'PUT each photo to its `url` with exactly its `headers` before `expiresAt`. Storage answers those uploads itself, in XML; a 403 there is almost always a Content-Type that is not `image/jpeg`. Answers 409 when the session is no longer active.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({ ...conflict, ...storageMissing })
    .input(sessionParams.extend({ body: UploadRequest }))
    .output(z.object({ uploads: z.array(UploadTarget) })),

  complete: booth
    .route({
      method: 'POST',
      path: '/booth/sessions/{sessionId}/complete',
      operationId: 'completeSession',
      summary: 'Complete an active session with its uploaded photos, in gallery order',
      description:
        'Every key must be in storage, else 422 with `missing` listing exactly those keys, and nothing is written. On success the photos are recorded with their dimensions and the gallery link is queued for every guest, by email and by SMS. Completing or cancelling again answers 409.',
      tags,
      inputStructure: 'detailed',
    })
    .errors({
      ...conflict,
      ...storageMissing,
      UNPROCESSABLE_CONTENT: {
        status: 422,
        message: 'Photo keys not in storage',
        data: z.object({ missing: z.array(z.string()).optional(), notJpeg: z.array(z.string()).optional() }),
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
    .errors(conflict)
    .input(sessionParams)
    .output(CancelledSession),
}
