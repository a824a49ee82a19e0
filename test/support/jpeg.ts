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
