import { AppError } from '../../errors.js'
import { api } from '../../orpc.js'

import { roleRefusal } from './roles.js'
import { STAFF_UNAUTHORIZED } from './staff-auth.middleware.js'

/**
 * The staff routes' implementer (`staffApi.events.list`, …): the Express layer authenticated /staff/* (its 401 is written there); this
 * narrows the member to present, guards against a staff route mounted outside /staff, and refuses a
 * member whose role is below the route's declared one (its contract `meta.role`) with 403.
 */
export const staffApi = api.staff.use(({ context, next, procedure }) => {
  const { staff } = context
  if (!staff) throw new AppError('unauthorized', STAFF_UNAUTHORIZED.error)
  const refusal = roleRefusal(staff.role, procedure['~orpc'].meta.role)
  if (refusal) throw new AppError('insufficient_role', refusal)
  return next({ context: { staff } })
})
