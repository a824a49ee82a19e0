import { parsePhoneNumberFromString } from 'libphonenumber-js'

/** Digits and the punctuation people type in phone numbers; letters are never a phone here. */
const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/u

/**
 * E.164 for anything that parses as a possible number (US when no country code is given),
 * else undefined. Possible, not "valid": a number the metadata does not know yet still delivers.
 */
export function toE164(input: string): string | undefined {
  if (!PHONE_CHARACTERS.test(input)) return undefined
  const parsed = parsePhoneNumberFromString(input, 'US')
  if (!parsed || !parsed.isPossible()) return undefined
  return parsed.number
}
