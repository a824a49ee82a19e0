import exifr from 'exifr'
import sharp from 'sharp'

import { Fault } from '../../errors.js'
import { stripJpegMetadata, type KeptExif } from './jpeg-metadata.js'
import type { DisplayCopy } from '../../db/entities/photo.entity.js'

// libvips' operation cache keeps decoded images around for re-use we never make: memory for nothing.
sharp.cache(false)

/**
 * The long side of the display copies: a grid's cells on a phone at 1× to 3× (480, 720, 960) and
 * the viewer (1600). 720 lets a 3× phone's half-width cell (about 585 device pixels) take a copy
 * at least its size without reaching for the 960's bytes.
 */
export const DISPLAY_WIDTHS = [480, 720, 960, 1600] as const
const LARGEST = DISPLAY_WIDTHS[DISPLAY_WIDTHS.length - 1]

/**
 * The most pixels decoded (64 MP: a 50 MP camera's frame passes). A larger frame, a decompression
 * bomb among them, is refused before decoding: its display copies fail; its full-size copy needs no
 * decoding.
 */
export const MAX_INPUT_PIXELS = 64_000_000

/**
 * WebP's effort (0 to 6): 2 encodes in half the time of the default 4 for about 6% more bytes
 * (measured in bench/README.md), and the end of an event is a burst of hundreds of photos on a few cores.
 */
const DISPLAY_EFFORT = 2
const DISPLAY_QUALITY = 78
/** Messengers drop link previews much larger than this. */
export const PREVIEW = { width: 1200, height: 630, maxBytes: 300 * 1024 } as const

/** Decoding options for uploads: a truncated JPEG shows what it holds instead of failing. */
const input = { failOn: 'none', limitInputPixels: MAX_INPUT_PIXELS } as const

export type FullSize = {
  bytes: Buffer
  width: number
  height: number
  /** `tagged`: turned by EXIF, which the copy keeps as its only tag besides the capture time. */
  how: 'stripped' | 'stripped, tagged'
  /** Whether the upload reached its end: a truncated one shows grey where its data stops. */
  complete: boolean
}

/**
 * The full-size photo guests download, made without decoding a pixel: the camera's compressed
 * pixels byte for byte, without EXIF location, camera tags, thumbnail or XMP, and with an EXIF block
 * of our own holding only the orientation (a turned photo shows upright wherever it is opened: every
 * current browser, phone and viewer honours it) and the capture time with its zone (so that a saved
 * photo sorts by the moment it was taken). No re-encoding: no loss, and a few milliseconds a photo
 * where decoding and encoding took a second. `size` is the photo as shown upright (completion's).
 */
export async function makeFullSize(original: Buffer, size: { width: number; height: number }): Promise<FullSize> {
  const taken = await captureTime(original)
  const stripped = stripJpegMetadata(original, { orientation: true, ...taken })
  const how = stripped.orientation === 1 ? 'stripped' : 'stripped, tagged'
  return { bytes: stripped.bytes, ...size, how, complete: stripped.complete }
}

/** When the camera says the photo was taken, as EXIF writes it; nothing when it says nothing readable. */
async function captureTime(original: Buffer): Promise<KeptExif> {
  try {
    const tags = (await exifr.parse(original, { pick: ['DateTimeOriginal', 'OffsetTimeOriginal'], reviveValues: false })) as
      { DateTimeOriginal?: unknown; OffsetTimeOriginal?: unknown } | undefined
    const text = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined)
    return { dateTimeOriginal: text(tags?.DateTimeOriginal), offsetTimeOriginal: text(tags?.OffsetTimeOriginal) }
  } catch {
    // EXIF that does not parse keeps no time: the photo is no less a photo.
    return {}
  }
}

export type DisplayCopies = { copies: (DisplayCopy & { bytes: Buffer })[]; preview?: Buffer }

/**
 * The display copies (WebP, upright, sRGB, no metadata at all) and, when asked, the link preview
 * (1200×630 JPEG, cropped to fill). The upload is decoded once, shrunk while it is decoded (libvips'
 * JPEG shrink-on-load: a 5184 px frame is read at half its size), straight to the largest copy's
 * size; the largest copy is that frame, and the smaller ones are made from it. Throws what sharp says
 * of an upload it cannot decode.
 */
export async function makeDisplayCopies(original: Buffer, { preview }: { preview: boolean }): Promise<DisplayCopies> {
  const { data, info } = await sharp(original, input)
    .rotate()
    .resize(LARGEST, LARGEST, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const
  const longSide = Math.max(info.width, info.height)
  // Every width smaller than the photo, and the largest (the decoded frame itself) when the photo reaches it.
  const widths: number[] = DISPLAY_WIDTHS.filter((width) => width < longSide)
  if (longSide === LARGEST || widths.length === 0) widths.push(longSide)
  const copies = []
  for (const side of widths) {
    let image = sharp(data, raw)
    if (side !== longSide) image = image.resize(side, side, { fit: 'inside' })
    const made = await image.webp({ quality: DISPLAY_QUALITY, effort: DISPLAY_EFFORT }).toBuffer({ resolveWithObject: true })
    copies.push({ width: made.info.width, height: made.info.height, bytes: made.data })
  }
  return { copies, preview: preview ? await makePreview(data, raw) : undefined }
}

async function makePreview(data: Buffer, raw: sharp.SharpOptions): Promise<Buffer> {
  for (const quality of [82, 70, 55]) {
    const bytes = await sharp(data, raw)
      .resize(PREVIEW.width, PREVIEW.height, { fit: 'cover', position: 'attention' })
      // Without mozjpeg's trellis: a fifth of the time, and the preview stays far under its bound.
      .jpeg({ quality })
      .toBuffer()
    if (bytes.length <= PREVIEW.maxBytes) return bytes
  }
  throw new Fault(`the link preview is over ${PREVIEW.maxBytes} bytes even at low quality`)
}
