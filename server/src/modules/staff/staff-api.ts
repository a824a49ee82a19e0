import { ORPCError } from '@orpc/server'

import { api } from '../../orpc.js'
import { STAFF_UNAUTHORIZED } from './staff-auth.middleware.js'

/**
 * The staff routes' implementer (`staffApi.events.list`, …): the Express layer authenticated /staff/* (its 401 is written there); this
 * narrows the member to present, and guards against a staff route mounted outside /staff.
 */
export const staffApi = api.staff.use(({ context, next }) => {
  const { staff } = context
  if (!staff) throw new ORPCError('UNAUTHORIZED', { message: STAFF_UNAUTHORIZED.error })
  return next({ context: { staff } })
})
