import { pub } from '../../orpc.js'
import { submitContact } from './contact.service.js'

export const contactRouter = {
  submit: pub.contact.submit.handler(({ input, context }) =>
    submitContact(context, input.body),
  ),
}
