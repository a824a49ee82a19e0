import sharp from 'sharp'

import { stripJpegMetadata } from './jpeg-metadata.js'
import type { DisplayCopy } from './photo.entity.js'

// libvips' operation cache keeps decoded images around for re-use we never make: memory for nothing.
sharp.cache(false)

/** The long side of the display copies: the grid's cells (480), a phone's screen (960) and the viewer (1600). */
export const DISPLAY_WIDTHS = [480, 960, 1600] as const

/**
 * The most pixels decoded (64 MP: a 50 MP camera's frame passes). A larger frame, a decompression
 * bomb among them, is refused before decoding: its display copies fail, and its full-size copy is
 * made without decoding it (stripped, not turned).
 */
export const MAX_INPUT_PIXELS = 64_000_000

/** A re-encoded full-size photo: high enough that a photographer sees no loss (measured in bench/README.md). */
export const FULL_SIZE_QUALITY = 92
const DISPLAY_QUALITY = 78
/** Messengers drop link previews much larger than this. */
export const PREVIEW = { width: 1200, height: 630, maxBytes: 300 * 1024 } as const

/** Decoding options for uploads: a truncated JPEG shows what it holds instead of failing. */
const input = { failOn: 'none', limitInputPixels: MAX_INPUT_PIXELS } as const

export type FullSize = {
  bytes: Buffer
  width: number
  height: number
  how: 'stripped' | 're-encoded' | 'stripped, not turned'
  /** Whether the upload reached its end: a truncated one shows grey where its data stops. */
  complete: boolean
}

/**
 * The full-size photo guests download: upright, without EXIF location or camera tags. Upright
 * already (the booth's usual case): the same compressed pixels with the metadata left out,
 * losslessly. Turned by EXIF: the pixels are turned and encoded once, at FULL_SIZE_QUALITY, keeping
 * the colour profile. A photo that cannot be decoded (too large, broken) is stripped all the same,
 * keeping only its orientation tag, so that it still shows the right way up.
 */
export async function makeFullSize(original: Buffer, size: { width: number; height: number }): Promise<FullSize> {
  const stripped = stripJpegMetadata(original)
  const { complete } = stripped
  if (stripped.orientation === 1) return { bytes: stripped.bytes, ...size, how: 'stripped', complete }
  try {
    const { data, info } = await sharp(original, input)
      .rotate()
      .keepIccProfile()
      .jpeg({ quality: FULL_SIZE_QUALITY })
      .toBuffer({ resolveWithObject: true })
    return { bytes: data, width: info.width, height: info.height, how: 're-encoded', complete }
  } catch {
    return { bytes: stripJpegMetadata(original, { keepOrientation: true }).bytes, ...size, how: 'stripped, not turned', complete }
  }
}

export type DisplayCopies = { copies: (DisplayCopy & { bytes: Buffer })[]; preview?: Buffer }

/**
 * The display copies (WebP, upright, sRGB, no metadata at all) and, when asked, the link preview
 * (1200×630 JPEG, cropped to fill). The upload is decoded once, shrunk while it is decoded (libvips'
 * JPEG shrink-on-load), into an intermediate of 2048 px on the long side that every copy is made
 * from. Throws what sharp says of an upload it cannot decode.
 */
export async function makeDisplayCopies(original: Buffer, { preview }: { preview: boolean }): Promise<DisplayCopies> {
  const { data, info } = await sharp(original, input)
    .rotate()
    .resize(2048, 2048, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const
  const longSide = Math.max(info.width, info.height)
  const widths = DISPLAY_WIDTHS.filter((width) => width < longSide)
  if (widths.length === 0) widths.push(longSide as (typeof DISPLAY_WIDTHS)[number])
  const copies = []
  for (const side of widths) {
    const made = await sharp(data, raw)
      .resize(side, side, { fit: 'inside' })
      .webp({ quality: DISPLAY_QUALITY })
      .toBuffer({ resolveWithObject: true })
    copies.push({ width: made.info.width, height: made.info.height, bytes: made.data })
  }
  return { copies, preview: preview ? await makePreview(data, raw) : undefined }
}

async function makePreview(data: Buffer, raw: sharp.SharpOptions): Promise<Buffer> {
  for (const quality of [82, 70, 55]) {
    const bytes = await sharp(data, raw)
      .resize(PREVIEW.width, PREVIEW.height, { fit: 'cover', position: 'attention' })
      .jpeg({ quality, mozjpeg: true })
      .toBuffer()
    if (bytes.length <= PREVIEW.maxBytes) return bytes
  }
  throw new Error(`the link preview is over ${PREVIEW.maxBytes} bytes even at low quality`)
}
