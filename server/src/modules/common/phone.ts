import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'
import { AppError } from '../../errors.js'

/** Digits and the punctuation people type in phone numbers; letters are never a phone here. */
const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/u

/** The country phones are read as from when neither the number nor its event names one. */
export const DEFAULT_PHONE_COUNTRY = 'US'

/** Whether numbers of this ISO 3166 country can be read: the numbering plans libphonenumber knows. */
export const isPhoneCountry = (code: string): code is CountryCode => isSupportedCountry(code)

/**
 * E.164 for anything that parses as a possible number (as from `country` when no country code is
 * given), else undefined. Possible, not "valid": a number the metadata does not know yet still delivers.
 */
export function toE164(input: string, country: string = DEFAULT_PHONE_COUNTRY): string | undefined {
  if (!PHONE_CHARACTERS.test(input)) return undefined
  const parsed = parsePhoneNumberFromString(input, isPhoneCountry(country) ? country : DEFAULT_PHONE_COUNTRY)
  if (!parsed || !parsed.isPossible()) return undefined
  return parsed.number
}

/** A phone number staff typed to look someone up, in E.164 (read as US without a country code), or a 400. */
export function queriedPhone(typed: string): string {
  const phone = toE164(typed)
  if (!phone) throw new AppError('invalid_phone', `This doesn't look like a phone number: ${typed}`)
  return phone
}
