import { AppError } from '../../errors.js'
import { api } from '../../orpc.js'
import { listBoothEvents, listQueue } from './booth-queue.service.js'
import { checkBoothScope } from './booth-scope.js'
import { cancelSession } from './cancel-session.service.js'
import { claimNextSession, claimSession, releaseSession } from './claims.service.js'
import { completeSession } from './complete-session.service.js'
import { createUploadTargets } from './uploads.service.js'

/**
 * The Express layer authenticates /booth/* (its 401 is plain text); this narrows the booth to
 * present for the booth procedures, and guards against a route mounted outside it.
 */
const booth = api.booth.use(({ context, next }) => {
  const { booth } = context
  if (!booth) throw new AppError('unauthorized', 'Unauthorized')
  return next({ context: { booth } })
})

export const boothRouter = {
  listEvents: booth.listEvents.handler(({ context }) => listBoothEvents(context)),
  listQueue: booth.listQueue.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input)
    return listQueue(context, input)
  }),
  claimNext: booth.claimNext.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input.params)
    return claimNextSession(context, { setId: input.params.setId, ...input.body })
  }),
  claim: booth.claim.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input.params)
    return claimSession(context, { sessionId: input.params.sessionId, ...input.body })
  }),
  release: booth.release.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input.params)
    return releaseSession(context, { sessionId: input.params.sessionId, ...input.body })
  }),
  createUploads: booth.createUploads.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input.params)
    return createUploadTargets(context, { sessionId: input.params.sessionId, count: input.body.count })
  }),
  complete: booth.complete.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input.params)
    return completeSession(context, { sessionId: input.params.sessionId, keys: input.body.photos })
  }),
  cancel: booth.cancel.handler(async ({ input, context }) => {
    await checkBoothScope(context, context.booth, input.params)
    return cancelSession(context, input.params)
  }),
}
