import exifr from 'exifr'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'

import { exifOrientation } from '../storage/jpeg-size.js'
import { stripJpegMetadata } from './jpeg-metadata.js'

/** The segments of a JPEG up to its first scan, as [marker, signature]. */
function segments(jpeg: Buffer): [number, string][] {
  const found: [number, string][] = []
  for (let at = 2; at + 4 <= jpeg.length && jpeg[at] === 0xff;) {
    const marker = jpeg[at + 1]!
    found.push([marker, jpeg.toString('latin1', at + 4, at + 9)])
    if (marker === 0xda) break
    at += 2 + jpeg.readUInt16BE(at + 2)
  }
  return found
}

/** From the first scan to the end of the image: the compressed pixels. */
const scanData = (jpeg: Buffer) => {
  const start = jpeg.indexOf(Buffer.from([0xff, 0xda]))
  return jpeg.subarray(start, jpeg.lastIndexOf(Buffer.from([0xff, 0xd9])) + 2)
}

async function tagged(options: { orientation?: number; progressive?: boolean } = {}) {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } })
    .jpeg({ progressive: options.progressive ?? false })
    .withExif({
      IFD0: { Make: 'Canon', Model: 'EOS', ImageDescription: 'x'.repeat(60_000) },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
    })
    .withMetadata({ orientation: options.orientation ?? 1 })
    .toBuffer()
}

describe('stripJpegMetadata', () => {
  it('when a JPEG carries EXIF (a 60 KB block, GPS, camera), a comment and a trailer, then only what decoding needs is kept and the pixels are the same bytes', async () => {
    const original = await tagged()
    const comment = Buffer.from([0xff, 0xfe, 0x00, 0x07, ...Buffer.from('hello')])
    const withComment = Buffer.concat([original.subarray(0, 2), comment, original.subarray(2), Buffer.from('MPF trailer with GPS 51.5N')])
    const { bytes, orientation } = stripJpegMetadata(withComment)
    expect(orientation).toBe(1)
    expect(
      segments(bytes)
        .map(([marker]) => marker)
        .filter((marker) => marker === 0xe1 || marker === 0xfe),
    ).toEqual([])
    expect(bytes.includes(Buffer.from('Canon'))).toBe(false)
    expect(bytes.includes(Buffer.from('trailer'))).toBe(false)
    expect(scanData(bytes).equals(scanData(original))).toBe(true)
    expect(bytes.length).toBeLessThan(original.length - 60_000)
    const decoded = await sharp(bytes).raw().toBuffer()
    expect(decoded.equals(await sharp(original).raw().toBuffer())).toBe(true)
  })

  it('when the JPEG is progressive, then every scan is kept', async () => {
    const original = await tagged({ progressive: true })
    const { bytes } = stripJpegMetadata(original)
    // 0xFF in compressed data is always followed by 0x00: every FF DA is a scan's start.
    const scans = (jpeg: Buffer) => jpeg.toString('latin1').split('\xff\xda').length - 1
    expect(scans(original)).toBeGreaterThan(1)
    expect(scans(bytes)).toBe(scans(original))
    expect((await sharp(bytes).raw().toBuffer()).equals(await sharp(original).raw().toBuffer())).toBe(true)
  })

  it('when asked to keep the orientation, then a minimal EXIF holds it and nothing else', async () => {
    const original = await tagged({ orientation: 6 })
    const { bytes, orientation } = stripJpegMetadata(original, { orientation: true })
    expect(orientation).toBe(6)
    const app1 = segments(bytes).filter(([marker]) => marker === 0xe1)
    expect(app1).toHaveLength(1)
    const at = bytes.indexOf(Buffer.from('Exif\0\0', 'latin1'))
    expect(exifOrientation(bytes.subarray(at, at + 40))).toBe(6)
    expect(bytes.includes(Buffer.from('Canon'))).toBe(false)
    expect((await sharp(bytes).metadata()).orientation).toBe(6)
  })

  it('when asked to keep the capture time, then EXIF readers find the orientation, DateTimeOriginal and its zone, and no place or camera', async () => {
    const original = await tagged({ orientation: 8 })
    const kept = { dateTimeOriginal: '2026:07:04 18:30:12', offsetTimeOriginal: '+02:00' }
    const { bytes } = stripJpegMetadata(original, { orientation: true, ...kept })
    const read: unknown = await exifr.parse(bytes, { reviveValues: false, translateValues: false, gps: true, tiff: true, exif: true })
    expect(read).toEqual({ Orientation: 8, DateTimeOriginal: kept.dateTimeOriginal, OffsetTimeOriginal: kept.offsetTimeOriginal })
    expect((await sharp(bytes).metadata()).orientation).toBe(8)
    expect((await sharp(bytes).raw().toBuffer()).equals(await sharp(original).raw().toBuffer())).toBe(true)
  })

  it('when an upright photo keeps only a capture time, or the time is not in EXIF form, then nothing of it is invented', async () => {
    const original = await tagged()
    const upright = stripJpegMetadata(original, { orientation: true, dateTimeOriginal: '2026:07:04 18:30:12' }).bytes
    expect(await exifr.parse(upright, { reviveValues: false, translateValues: false })).toEqual({
      Orientation: 1,
      DateTimeOriginal: '2026:07:04 18:30:12',
    })
    const garbage = stripJpegMetadata(original, { orientation: true, dateTimeOriginal: 'yesterday <script>' }).bytes
    expect(segments(garbage).filter(([marker]) => marker === 0xe1)).toEqual([])
  })

  it('when the upload breaks off mid-scan, then what it holds is kept and ended', async () => {
    const original = await tagged()
    const { bytes } = stripJpegMetadata(original.subarray(0, original.length - 40))
    expect(bytes.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]))
    expect(bytes.includes(Buffer.from('Canon'))).toBe(false)
  })

  it('when the bytes are not a JPEG, then it throws', () => {
    expect(() => stripJpegMetadata(Buffer.from('not a jpeg'))).toThrow(/not a JPEG/)
  })
})
