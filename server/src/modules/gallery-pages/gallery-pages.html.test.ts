import { describe, expect, it } from 'vitest'

import { megabytes } from './gallery-pages.html.js'

describe('the size "Download all" shows', () => {
  it('when a zip is under a megabyte, then it reads in whole kilobytes, never 0 and never 1000', () => {
    expect([1, 499, 1_500, 999_499].map(megabytes)).toEqual(['1 KB', '1 KB', '2 KB', '999 KB'])
    expect([999_500, 999_999, 1_000_000].map(megabytes)).toEqual(['1.0 MB', '1.0 MB', '1.0 MB'])
  })

  it('when it is larger, then in megabytes (from a thousand of them, gigabytes) with one decimal, as phones show sizes', () => {
    expect([4_249_999, 4_250_001, 120_000_000, 999_949_999].map(megabytes)).toEqual(['4.2 MB', '4.3 MB', '120.0 MB', '999.9 MB'])
    expect([999_950_000, 2_000_000_000].map(megabytes)).toEqual(['1.0 GB', '2.0 GB'])
  })
})
