import { api } from '../../orpc.js'
import { submitContact } from './contact.service.js'

export const contactRouter = {
  submit: api.contact.submit.handler(({ input, context }) => submitContact(context, input.body)),
}
