import { staffProcedure } from '../staff/staff.procedure.js'
import { retryMessage } from './staff-messages.service.js'

const messages = staffProcedure.staff.messages

export const staffMessagesRouter = {
  retry: messages.retry.handler(({ input, context }) => retryMessage(context, input.params)),
}
