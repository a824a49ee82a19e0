/** Reads `length` bytes at `offset` (fewer at the end of the object). */
export type RangeReader = (offset: number, length: number) => Promise<Buffer>

export type JpegSize = { width: number; height: number }

const WINDOW = 16 * 1024
/** Start-of-frame markers carry the dimensions; C4, C8 and CC share the range but are not frames. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)
const EXIF_ORIENTATION_TAG = 0x0112
const EXIF_HEAD_BYTES = 4096

/**
 * A JPEG's displayed width and height, read from its own header with a few small ranged reads:
 * segments before the frame (EXIF thumbnails can be large) are skipped by their declared length,
 * never downloaded. EXIF orientations 5 to 8 (quarter turns) swap width and height, as browsers
 * show them. Undefined when the bytes are not a JPEG.
 */
export async function readJpegSize(read: RangeReader): Promise<JpegSize | undefined> {
  let window = { start: 0, bytes: await read(0, WINDOW) }
  const bytesAt = async (offset: number, length: number): Promise<Buffer | undefined> => {
    if (offset < window.start || offset + length > window.start + window.bytes.length) {
      window = { start: offset, bytes: await read(offset, Math.max(WINDOW, length)) }
    }
    const slice = window.bytes.subarray(offset - window.start, offset - window.start + length)
    return slice.length === length ? slice : undefined
  }

  if (window.bytes[0] !== 0xff || window.bytes[1] !== 0xd8) return undefined
  let orientation = 1
  let offset = 2
  for (;;) {
    const header = await bytesAt(offset, 4)
    if (!header || header[0] !== 0xff) return undefined
    const marker = header[1]!
    if (marker === 0xff) {
      offset += 1 // fill byte
      continue
    }
    if (marker === 0xd9 || marker === 0xda) return undefined // end of image or scan before any frame
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2 // markers without a segment
      continue
    }
    const segmentLength = header.readUInt16BE(2)
    if (segmentLength < 2) return undefined
    if (isStartOfFrame(marker)) {
      const frame = await bytesAt(offset + 4, 5)
      if (!frame) return undefined
      const height = frame.readUInt16BE(1)
      const width = frame.readUInt16BE(3)
      if (width === 0 || height === 0) return undefined
      return orientation >= 5 && orientation <= 8 ? { width: height, height: width } : { width, height }
    }
    if (marker === 0xe1) {
      // IFD0, where the orientation lives, opens the segment; the thumbnail after it is never read.
      const segment = await bytesAt(offset + 4, Math.min(segmentLength - 2, EXIF_HEAD_BYTES))
      if (segment) orientation = exifOrientation(segment) ?? orientation
    }
    offset += 2 + segmentLength
  }
}

/** The orientation tag of IFD0 in an APP1 "Exif" segment, if any. */
export function exifOrientation(segment: Buffer): number | undefined {
  if (segment.length < 14 || segment.toString('latin1', 0, 6) !== 'Exif\0\0') return undefined
  const tiff = segment.subarray(6)
  const order = tiff.toString('latin1', 0, 2)
  if (order !== 'II' && order !== 'MM') return undefined
  const u16 = (at: number) => (order === 'II' ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at))
  const u32 = (at: number) => (order === 'II' ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at))
  const ifd = u32(4)
  if (ifd + 2 > tiff.length) return undefined
  const entries = u16(ifd)
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12
    if (entry + 12 > tiff.length) return undefined
    if (u16(entry) === EXIF_ORIENTATION_TAG) return u16(entry + 8)
  }
  return undefined
}
