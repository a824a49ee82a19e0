import { findSuppressions, liftSuppression } from './suppressions.service.js'
import { staffApi } from '../staff/index.js'
import { retryFailedMessages, retryMessage } from './staff-messages.service.js'

const messages = staffApi.messages

export const staffMessagesRouter = {
  retry: messages.retry.handler(({ input, context }) => retryMessage(context, input.params)),
  retrySession: messages.retrySession.handler(({ input, context }) => retryFailedMessages(context, input.params)),
  retryEvent: messages.retryEvent.handler(({ input, context }) => retryFailedMessages(context, input.params)),
  findSuppressions: messages.findSuppressions.handler(({ input, context }) => findSuppressions(context, input)),
  liftSuppression: messages.liftSuppression.handler(({ input, context }) => liftSuppression(context, input.body)),
}
