import jpeg from 'jpeg-js'
import { describe, expect, it } from 'vitest'

import { exifOrientation, readJpegSize, type RangeReader } from './jpeg-size.js'

function encode(width: number, height: number): Buffer {
  return jpeg.encode({ width, height, data: Buffer.alloc(width * height * 4, 128) }, 80).data
}

/** An APP1 Exif segment holding only the orientation tag, little- or big-endian. */
function exifSegment(orientation: number, order: 'II' | 'MM', padding = 0): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4)
  const u16 = (value: number, at: number) => (order === 'II' ? tiff.writeUInt16LE(value, at) : tiff.writeUInt16BE(value, at))
  const u32 = (value: number, at: number) => (order === 'II' ? tiff.writeUInt32LE(value, at) : tiff.writeUInt32BE(value, at))
  tiff.write(order, 0, 'latin1')
  u16(42, 2)
  u32(8, 4)
  u16(1, 8)
  u16(0x0112, 10)
  u16(3, 12)
  u32(1, 14)
  u16(orientation, 18)
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff, Buffer.alloc(padding)])
  const header = Buffer.from([0xff, 0xe1, 0, 0])
  header.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([header, body])
}

/** Inserts segments right after the start-of-image marker. */
const withSegments = (image: Buffer, ...segments: Buffer[]) => Buffer.concat([image.subarray(0, 2), ...segments, image.subarray(2)])

function reader(bytes: Buffer) {
  const reads: { offset: number; length: number }[] = []
  const read: RangeReader = async (offset, length) => {
    reads.push({ offset, length })
    return bytes.subarray(offset, offset + length)
  }
  return { read, reads, bytesRead: () => reads.reduce((sum, r) => sum + Math.min(r.length, Math.max(0, bytes.length - r.offset)), 0) }
}

describe('readJpegSize', () => {
  it('when given a JPEG, then its width and height come from the frame header', async () => {
    expect(await readJpegSize(reader(encode(64, 48)).read)).toEqual({ width: 64, height: 48 })
  })

  it('when a large segment precedes the frame, then it is skipped with ranged reads, not downloaded', async () => {
    const image = withSegments(encode(32, 16), exifSegment(1, 'II', 60_000))
    const source = reader(image)
    expect(await readJpegSize(source.read)).toEqual({ width: 32, height: 16 })
    expect(source.reads).toHaveLength(2)
    expect(source.bytesRead()).toBeLessThan(image.length)
  })

  it('when EXIF says the photo is turned a quarter, then width and height are swapped as displayed', async () => {
    for (const order of ['II', 'MM'] as const) {
      expect(await readJpegSize(reader(withSegments(encode(40, 30), exifSegment(6, order))).read)).toEqual({ width: 30, height: 40 })
      expect(await readJpegSize(reader(withSegments(encode(40, 30), exifSegment(3, order))).read)).toEqual({ width: 40, height: 30 })
    }
  })

  it('when the bytes are not a JPEG, then there is no size', async () => {
    expect(await readJpegSize(reader(Buffer.from('\x89PNG\r\n\x1a\n0000', 'latin1')).read)).toBeUndefined()
    expect(await readJpegSize(reader(Buffer.alloc(0)).read)).toBeUndefined()
  })

  it('when a JPEG is cut before its frame header, then there is no size', async () => {
    const image = withSegments(encode(8, 8), exifSegment(1, 'II', 100))
    expect(await readJpegSize(reader(image.subarray(0, 60)).read)).toBeUndefined()
  })
})

describe('exifOrientation', () => {
  it('when the segment is not Exif, then there is no orientation', () => {
    expect(exifOrientation(Buffer.from('JFIF\0'))).toBeUndefined()
  })
})
