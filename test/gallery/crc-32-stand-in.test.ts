import { createRequire } from 'node:module'

import { describe, expect, it } from 'vitest'

// What archiver's zip modules load under the name `crc-32` (the pnpm override in package.json).
const crc = createRequire(import.meta.url)('../../vendor/crc-32-native/index.js') as {
  buf: (data: Uint8Array, seed?: number) => number
  str: (text: string, seed?: number) => number
}

describe('the native crc-32 stand-in', () => {
  it('when given known inputs, then it answers crc-32’s signed results', () => {
    expect(crc.buf(Buffer.from('hello'))).toBe(907060870)
    expect(crc.str('The quick brown fox jumps over the lazy dog')).toBe(0x414fa339 | 0)
    expect(crc.buf(Buffer.from([0xff, 0xfe, 0xfd]))).toBe(149598061)
    expect(crc.buf(Buffer.alloc(0))).toBe(0)
    // Signed, as crc-32 answers: the zip modules store `>>> 0` of it.
    expect(crc.str('a')).toBe(-390611389)
  })

  it('when fed in pieces with the previous result as seed, then it equals the CRC of the whole', () => {
    const whole = Buffer.from('stored zip entries are checksummed chunk by chunk')
    let seed: number | undefined
    for (let at = 0; at < whole.length; at += 7) seed = crc.buf(whole.subarray(at, at + 7), seed)
    expect(seed).toBe(crc.buf(whole))
  })
})
