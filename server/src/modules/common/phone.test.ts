import { describe, expect, it } from 'vitest'

import { toE164 } from './phone.js'

describe('toE164', () => {
  it('when a US number has no country code, then +1 is assumed', () => {
    expect(toE164('(415) 555-2671')).toBe('+14155552671')
    expect(toE164('415.555.2671')).toBe('+14155552671')
  })

  it('when a number has a country code, then it is kept', () => {
    expect(toE164('+44 20 7946 0958')).toBe('+442079460958')
    expect(toE164('+33 6 12 34 56 78')).toBe('+33612345678')
  })

  it('when the input holds letters, then it is not a phone number', () => {
    expect(toE164('abc')).toBeUndefined()
    expect(toE164('1-800-FLOWERS')).toBeUndefined()
    expect(toE164('call me')).toBeUndefined()
  })

  it('when the input has too few or too many digits, then it is not a phone number', () => {
    expect(toE164('12345')).toBeUndefined()
    expect(toE164('+1 415 555 2671 1234 5678')).toBeUndefined()
    expect(toE164('+')).toBeUndefined()
  })
})
