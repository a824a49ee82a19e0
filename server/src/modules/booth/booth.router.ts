import { ORPCError } from '@orpc/server'

import { pub } from '../../orpc.js'
import { cancelSession } from './cancel-session.service.js'
import { completeSession } from './complete-session.service.js'
import { listBoothEvents, listQueue } from './booth-queue.service.js'
import { createUploadTargets } from './uploads.service.js'

/** The Express layer authenticates /booth/*; this guards against a route mounted outside it. */
const booth = pub.use(({ context, next }) => {
  if (!context.caller) throw new ORPCError('UNAUTHORIZED')
  return next()
})

export const boothRouter = {
  listEvents: booth.booth.listEvents.handler(({ context }) => listBoothEvents(context.em)),
  listQueue: booth.booth.listQueue.handler(({ input, context }) => listQueue(context.em, input.setId)),
  createUploads: booth.booth.createUploads.handler(({ input: { params, body }, context }) =>
    createUploadTargets(context, params.sessionId, body.count),
  ),
  complete: booth.booth.complete.handler(({ input: { params, body }, context }) =>
    completeSession(
      {
        em: context.em,
        storage: context.storage,
        cdnUrl: context.config.cdnUrl,
        galleryUrl: context.config.galleryUrl,
        onQueued: context.wakeDelivery,
      },
      params.sessionId,
      body.photos,
      context.now(),
    ),
  ),
  cancel: booth.booth.cancel.handler(({ input: { params }, context }) => cancelSession(context.em, params.sessionId, context.now())),
}
