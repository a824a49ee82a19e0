import { ContactSubmission } from '@photobooth/sdk/schemas'
import { z } from 'zod'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'

export type ContactMessage = { fields: Record<string, string>; replyTo?: string }

/** Relays a submission; throws when the provider refuses it. */
export type ContactMailer = { send(message: ContactMessage): Promise<void> }

const INVALID = 'Invalid submission'
const email = z.email()

/** The fields, and every label as sent: a "__proto__" label is an own key of the parsed JSON, but not of a copy. */
function parseSubmission(body: unknown): { fields: Record<string, string>; labels: string[] } {
  let value = body
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body)
    } catch {
      throw new AppError('invalid_submission', INVALID)
    }
  }
  const parsed = ContactSubmission.safeParse(value)
  if (!parsed.success) throw new AppError('invalid_submission', INVALID)
  return { fields: parsed.data.fields, labels: Object.keys((value as { fields: object }).fields) }
}

/**
 * The website contact form, relayed by email. Only the labels of the published contact page are
 * accepted: this is not a general mailer. The value of the field the form types as an email, when it
 * is an address, becomes Reply-To; nothing else of the submission reaches a mail header.
 */
export async function submitContact(deps: Pick<AppContext, 'contactLabels' | 'contactMailer'>, body: unknown) {
  const { fields, labels } = parseSubmission(body)
  const form = await deps.contactLabels.get()
  if (!form) throw new AppError('contact_form_unavailable', 'The contact form is unavailable')
  const unknown = labels.filter((label) => !form.labels.includes(label))
  if (unknown.length > 0) throw new AppError('unknown_fields', `Unknown fields: ${unknown.join(', ')}`)
  if (!deps.contactMailer) throw new AppError('mail_not_configured', 'Mail is not configured')
  // Only a field the published form types as an email: a Name of "ceo@victim.example" is a name.
  const replyTo = form.emailLabels
    .map((label) => fields[label]?.trim())
    .find((value) => value !== undefined && email.safeParse(value).success)
  try {
    await deps.contactMailer.send({ fields, replyTo })
  } catch (error) {
    throw new AppError('mail_refused', 'The mail provider refused the message', undefined, error)
  }
  return { ok: true as const }
}
