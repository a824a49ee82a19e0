import { randomBytes } from 'node:crypto'

import jpeg from 'jpeg-js'

/** A real JPEG of the given size: a colour gradient, so that sizes and bytes differ per image. */
export function makeJpeg(width: number, height: number, seed = 0): Buffer {
  const data = Buffer.alloc(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4
      data[at] = (x * 7 + seed) & 255
      data[at + 1] = (y * 5 + seed * 3) & 255
      data[at + 2] = (x + y + seed * 11) & 255
      data[at + 3] = 255
    }
  }
  return jpeg.encode({ width, height, data }, 85).data
}

/**
 * A JPEG of about `bytes` bytes whose every byte is served as uploaded: a small image whose scan runs
 * on with random bytes (no 0xFF, so no marker) before its end, which the full-size copy keeps as it
 * keeps every compressed byte. For tests of large transfers.
 */
export function makeLargeJpeg(bytes: number, seed = 0): Buffer {
  const image = makeJpeg(16, 16, seed)
  const filler = randomBytes(bytes).map((byte) => (byte === 0xff ? 0xfe : byte))
  return Buffer.concat([image.subarray(0, -2), filler, image.subarray(-2)])
}
