/**
 * The phone helpers, loaded after the first screen (libphonenumber-js's metadata is most of the
 * kiosk's bytes): the number formatted as it is typed, in the event's country, and the service's
 * own rule for a phone it takes (server/src/modules/common/phone.ts: digits and phone punctuation,
 * a possible number of that country), so that a number typed offline is checked before it is kept.
 * The core functions with the "min" metadata, as the service's default import uses.
 */
import { AsYouType, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/core'
import metadata from 'libphonenumber-js/min/metadata'

const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/u

const countryOf = (country: string): CountryCode => (isSupportedCountry(country as CountryCode, metadata) ? (country as CountryCode) : 'US')

export function formatPhone(input: string, country: string): string {
  return new AsYouType(countryOf(country), metadata).input(input)
}

export function isPossiblePhone(input: string, country: string): boolean {
  if (!PHONE_CHARACTERS.test(input)) return false
  return parsePhoneNumberFromString(input, countryOf(country), metadata)?.isPossible() ?? false
}
