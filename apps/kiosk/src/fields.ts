import { errorCodeOf, isApiError } from '@photobooth/sdk/kiosk'

import type { Language, TEXTS } from './texts.js'

/** One guest as typed; `listed` is "show my photos on the event's page". */
export type GuestDraft = { name: string; email: string; phone: string; marketingOptIn: boolean; listed: boolean }

/**
 * A message at a field: `guests.1.phone`, `guests.1.email`, `guests.1.name`, `guests.1` (either
 * contact field), `privacyNoticeVersion`, or `form` (the whole kiosk: its set is gone). `serviceText`
 * is the service's own words, shown as they are in English.
 */
export type FieldError = { field: string; code: string; serviceText?: string; param?: string }

/** The email rule of the service's contract (zod's `z.email()`), so that an address typed offline is checked the same. */
const EMAIL = /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/

/**
 * The service's guest rules, checked before a group is sent or kept: a group kept offline and
 * refused later would reach no one, its guests gone. The service checks again.
 */
export function checkGuests(guests: readonly GuestDraft[], isPossiblePhone: (input: string) => boolean): FieldError[] {
  return guests.flatMap((guest, index): FieldError[] => {
    const name = guest.name.trim()
    const email = guest.email.trim()
    const phone = guest.phone.trim()
    const errors: FieldError[] = []
    if (!name) errors.push({ field: `guests.${index}.name`, code: 'name_required' })
    if (email && !EMAIL.test(email)) errors.push({ field: `guests.${index}.email`, code: 'invalid_email' })
    if (phone && !isPossiblePhone(phone)) errors.push({ field: `guests.${index}.phone`, code: 'invalid_phone', param: phone })
    if (!email && !phone) errors.push({ field: `guests.${index}`, code: 'missing_contact', param: name || '…' })
    return errors
  })
}

/** The service's refusal as messages at their fields, from its `code` and `field`; undefined for anything else. */
export function fieldErrorsOf(error: unknown, guests: readonly GuestDraft[]): FieldError[] | undefined {
  if (!isApiError(error)) return undefined
  const code = errorCodeOf(error)
  const data = (error.data ?? {}) as { field?: unknown; issues?: { path?: unknown[]; message?: string }[] }
  const field = typeof data.field === 'string' ? data.field : undefined
  const guestOf = (path: string | undefined) => guests[Number(path?.split('.')[1])]
  switch (code) {
    case 'invalid_phone':
      return [{ field: field ?? 'form', code, serviceText: error.message, param: guestOf(field)?.phone.trim() ?? '' }]
    case 'missing_contact':
      return [{ field: field ?? 'form', code, serviceText: error.message, param: guestOf(field)?.name.trim() ?? '' }]
    case 'invalid_input':
      return (data.issues ?? []).map((issue) => {
        const path = (issue.path ?? []).join('.')
        const known = /^guests\.\d+\.(name|email|phone)$/.exec(path)
        return {
          field: known ? path : 'form',
          code: path.endsWith('.name') ? 'name_required' : path.endsWith('.email') ? 'invalid_email' : 'invalid_input',
          ...(issue.message ? { serviceText: issue.message } : {}),
        }
      })
    case 'unknown_privacy_notice':
      return [{ field: 'privacyNoticeVersion', code, serviceText: error.message }]
    case 'no_such_set':
      return [{ field: 'form', code, serviceText: error.message }]
    default:
      return [{ field: 'form', code: code ?? 'unknown', serviceText: error.message }]
  }
}

/** The text of a message: the service's words in English, this kiosk's table by code in the other languages. */
export function messageOf(error: FieldError, texts: (typeof TEXTS)[Language], language: Language): string {
  // The 404's text names a set ("no such set"): the guest is told what to do instead.
  if (error.code === 'no_such_set') return texts.noSuchSet
  if (error.code === 'unknown_privacy_notice') return texts.unknownNotice
  if (language === 'en' && error.serviceText) return error.serviceText
  switch (error.code) {
    case 'name_required':
      return texts.nameRequired
    case 'invalid_email':
      return texts.invalidEmail
    case 'invalid_phone':
      return texts.invalidPhone(error.param ?? '')
    case 'missing_contact':
      return texts.missingContact(error.param ?? '')
    default:
      return error.serviceText ?? texts.tryAgain
  }
}
