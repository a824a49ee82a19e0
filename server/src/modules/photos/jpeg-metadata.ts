import { exifOrientation } from '../storage/jpeg-size.js'

/** APPn segments kept, by their marker and the signature that opens them: what decoding needs. */
const KEPT_APP_SEGMENTS: readonly { marker: number; signature: string }[] = [
  { marker: 0xe0, signature: 'JFIF\0' },
  // The colour profile: without it a wide-gamut photo shows washed out.
  { marker: 0xe2, signature: 'ICC_PROFILE\0' },
  // Adobe's transform flag: without it a CMYK or YCCK JPEG decodes to the wrong colours.
  { marker: 0xee, signature: 'Adobe' },
]

const isApp = (marker: number) => marker >= 0xe0 && marker <= 0xef
const COMMENT = 0xfe
const START_OF_SCAN = 0xda
const END_OF_IMAGE = 0xd9
/** Markers without a length: TEM and the restart markers. */
const standalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)

export type StrippedJpeg = {
  bytes: Buffer
  /** The EXIF orientation the upload carried (1 when it had none): the stripped bytes no longer say it. */
  orientation: number
  /** Whether the upload reached its end-of-image marker: false for a truncated upload, or one with something else inside. */
  complete: boolean
}

/**
 * A JPEG without its metadata, losslessly: the compressed pixels are copied byte for byte, and of
 * the segments before them only those decoding needs are kept (JFIF, the ICC profile, Adobe's
 * colour transform, tables and frames). Dropped: EXIF (GPS position, camera make, model and serial,
 * dates, the thumbnail), XMP, IPTC, comments, every other APPn, and whatever follows the end of the
 * image (the second pictures of MPF files, makers' trailers). `keepOrientation` writes back a
 * minimal EXIF block holding only the orientation, for a photo whose pixels could not be turned.
 * A structure that breaks off (a truncated upload, garbage) is kept up to the break. Throws only on
 * bytes that do not start as a JPEG (completion refuses those).
 */
export function stripJpegMetadata(source: Buffer, { keepOrientation = false } = {}): StrippedJpeg {
  if (source[0] !== 0xff || source[1] !== 0xd8) throw new Error('not a JPEG: no start-of-image marker')
  const kept: Buffer[] = [source.subarray(0, 2)]
  let orientation = 1
  let complete = false
  let at = 2
  for (;;) {
    if (at + 2 > source.length) break // truncated: what there is, then an end marker
    if (source[at] !== 0xff) break // garbage where a marker belongs: kept as far as it made sense
    const marker = source[at + 1]!
    if (marker === 0xff) {
      at += 1 // fill byte
      continue
    }
    if (marker === END_OF_IMAGE) {
      complete = true
      break
    }
    if (standalone(marker)) {
      kept.push(source.subarray(at, at + 2))
      at += 2
      continue
    }
    if (at + 4 > source.length) break
    const end = at + 2 + source.readUInt16BE(at + 2)
    const segment = source.subarray(at, Math.min(end, source.length))
    if (marker === START_OF_SCAN) {
      // The scan's data runs to the next marker that is not a stuffed 0xFF00 or a restart marker.
      let next = source.indexOf(0xff, end)
      while (
        next !== -1 &&
        next + 1 < source.length &&
        (source[next + 1] === 0x00 || (source[next + 1]! >= 0xd0 && source[next + 1]! <= 0xd7))
      ) {
        next = source.indexOf(0xff, next + 2)
      }
      if (next === -1 || next + 1 >= source.length) next = source.length
      kept.push(source.subarray(at, next))
      at = next
      continue
    }
    if (marker === 0xe1) orientation = exifOrientation(segment.subarray(4)) ?? orientation
    const keep =
      marker !== COMMENT &&
      (!isApp(marker) ||
        KEPT_APP_SEGMENTS.some((app) => app.marker === marker && segment.toString('latin1', 4, 4 + app.signature.length) === app.signature))
    if (keep) kept.push(segment)
    at = end
  }
  kept.push(Buffer.from([0xff, END_OF_IMAGE]))
  if (keepOrientation && orientation !== 1) kept.splice(afterJfif(kept), 0, orientationOnlyExif(orientation))
  return { bytes: Buffer.concat(kept), orientation: orientation >= 1 && orientation <= 8 ? orientation : 1, complete }
}

/** Where an APP1 goes: after the start marker and a JFIF segment, if there is one. */
const afterJfif = (segments: Buffer[]) => (segments[1]?.[1] === 0xe0 ? 2 : 1)

/** An APP1 segment whose EXIF holds one entry: the orientation (big-endian TIFF, one IFD, no next). */
function orientationOnlyExif(orientation: number): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4)
  tiff.write('MM', 0, 'latin1')
  tiff.writeUInt16BE(42, 2)
  tiff.writeUInt32BE(8, 4) // IFD0 right after the header
  tiff.writeUInt16BE(1, 8) // one entry
  tiff.writeUInt16BE(0x0112, 10) // Orientation
  tiff.writeUInt16BE(3, 12) // SHORT
  tiff.writeUInt32BE(1, 14) // one value
  tiff.writeUInt16BE(orientation, 18) // left-justified in the value field
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])
  const header = Buffer.from([0xff, 0xe1, 0, 0])
  header.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([header, body])
}
