import { staffApi } from '../staff/index.js'
import { listAuditEvents } from './audit.service.js'

export const staffAuditRouter = {
  list: staffApi.audit.list.handler(({ input, context }) => listAuditEvents(context, input)),
}
