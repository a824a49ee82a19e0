import { Fault } from '../../errors.js'
import { exifOrientation } from '../storage/index.js'

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

/** What a guest's copy keeps of the camera's EXIF: when it was taken, never where or with what. */
export type KeptExif = {
  /** `YYYY:MM:DD HH:MM:SS`, the camera's clock: photos apps sort by it. */
  dateTimeOriginal?: string
  /** `+02:00`: the zone of that clock, when the camera wrote one. */
  offsetTimeOriginal?: string
}

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
 * the thumbnail), XMP, IPTC, comments, every other APPn, and whatever follows the end of the image
 * (the second pictures of MPF files, makers' trailers). `keep` writes back a minimal EXIF block of
 * this service's own holding only the orientation (every current browser, phone and viewer turns
 * the pixels by it, so a turned photo needs no re-encoding) and the capture time given. A structure
 * that breaks off (a truncated upload, garbage) is kept up to the break. Throws only on bytes that do
 * not start as a JPEG (completion refuses those).
 */
export function stripJpegMetadata(source: Buffer, keep?: { orientation: true } & KeptExif): StrippedJpeg {
  if (source[0] !== 0xff || source[1] !== 0xd8) throw new Fault('not a JPEG: no start-of-image marker')
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
  const upright = orientation >= 1 && orientation <= 8 ? orientation : 1
  const dateTimeOriginal = keep?.dateTimeOriginal && DATE_TIME.test(keep.dateTimeOriginal) ? keep.dateTimeOriginal : undefined
  if (keep && (upright !== 1 || dateTimeOriginal)) kept.splice(afterJfif(kept), 0, minimalExif(upright, { ...keep, dateTimeOriginal }))
  return { bytes: Buffer.concat(kept), orientation: upright, complete }
}

/** Where an APP1 goes: after the start marker and a JFIF segment, if there is one. */
const afterJfif = (segments: Buffer[]) => (segments[1]?.[1] === 0xe0 ? 2 : 1)

const EXIF_TAGS = { orientation: 0x0112, exifIfd: 0x8769, dateTimeOriginal: 0x9003, offsetTimeOriginal: 0x9011 } as const
const SHORT = 3
const LONG = 4
const ASCII = 2
const DATE_TIME = /^\d{4}:\d{2}:\d{2} \d{2}:\d{2}:\d{2}$/
const OFFSET = /^[+-]\d{2}:\d{2}$/

/**
 * An APP1 segment of this service's own EXIF (big-endian TIFF): IFD0 with the orientation and, when a
 * capture time is kept, the pointer to an Exif IFD holding DateTimeOriginal (and OffsetTimeOriginal).
 * Entries in tag order, values over four bytes after the IFDs, as TIFF 6 lays them out. A date (checked
 * by the caller) or an offset not in EXIF's own form is left out rather than copied.
 */
function minimalExif(orientation: number, { dateTimeOriginal, offsetTimeOriginal }: KeptExif): Buffer {
  const date = dateTimeOriginal
  const offset = date && offsetTimeOriginal && OFFSET.test(offsetTimeOriginal) ? offsetTimeOriginal : undefined
  const exifEntries: [number, string][] = date
    ? [[EXIF_TAGS.dateTimeOriginal, date], ...(offset ? [[EXIF_TAGS.offsetTimeOriginal, offset] as [number, string]] : [])]
    : []
  const ifd0Count = date ? 2 : 1
  const ifd0At = 8
  const exifAt = ifd0At + 2 + ifd0Count * 12 + 4
  let dataAt = exifAt + (date ? 2 + exifEntries.length * 12 + 4 : 0)
  const strings = exifEntries.map(([, text]) => Buffer.from(`${text}\0`, 'latin1'))
  const tiff = Buffer.alloc(dataAt + strings.reduce((sum, bytes) => sum + bytes.length, 0))
  tiff.write('MM', 0, 'latin1')
  tiff.writeUInt16BE(42, 2)
  tiff.writeUInt32BE(ifd0At, 4)
  const entry = (at: number, tag: number, type: number, count: number, value: number, valueIsShort = false) => {
    tiff.writeUInt16BE(tag, at)
    tiff.writeUInt16BE(type, at + 2)
    tiff.writeUInt32BE(count, at + 4)
    if (valueIsShort)
      tiff.writeUInt16BE(value, at + 8) // left-justified in the value field
    else tiff.writeUInt32BE(value, at + 8)
  }
  tiff.writeUInt16BE(ifd0Count, ifd0At)
  entry(ifd0At + 2, EXIF_TAGS.orientation, SHORT, 1, orientation, true)
  if (date) {
    entry(ifd0At + 14, EXIF_TAGS.exifIfd, LONG, 1, exifAt)
    tiff.writeUInt16BE(exifEntries.length, exifAt)
    exifEntries.forEach(([tag], i) => {
      const bytes = strings[i]!
      entry(exifAt + 2 + i * 12, tag, ASCII, bytes.length, dataAt)
      bytes.copy(tiff, dataAt)
      dataAt += bytes.length
    })
  }
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])
  const header = Buffer.from([0xff, 0xe1, 0, 0])
  header.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([header, body])
}
