import { pub } from '../../orpc.js'
import { submitContact } from './contact.service.js'

export const contactRouter = {
  submit: pub.contact.submit.handler(({ input, context }) =>
    submitContact({ labels: context.contactLabels, mailer: context.contactMailer }, input.body),
  ),
}
