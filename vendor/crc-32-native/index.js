'use strict'
// crc-32's API (signed 32-bit results, `seed` = the previous result) on zlib.crc32, which is native.
// archiver computes the CRC of every byte it zips; the JavaScript original was a sixth of a zip's CPU.
const { crc32 } = require('node:zlib')

const seedOf = (seed) => (typeof seed === 'number' ? seed >>> 0 : 0)

exports.version = '1.2.2-native.0'
exports.buf = (data, seed) => crc32(data, seedOf(seed)) | 0
exports.str = (text, seed) => crc32(String(text), seedOf(seed)) | 0
exports.bstr = (binary, seed) => crc32(Buffer.from(String(binary), 'latin1'), seedOf(seed)) | 0
