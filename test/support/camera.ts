import sharp from 'sharp'

export type CameraOptions = {
  width?: number
  height?: number
  /** The EXIF orientation the camera wrote (6: held upright, the sensor's pixels sideways). */
  orientation?: number
  /** The tags a camera writes: GPS position, make, model, serial. */
  tags?: boolean
  seed?: number
  quality?: number
}

/** The EXIF a camera with a GPS receiver writes: where, with what, which body, and when (in its zone). */
export const CAMERA_TAGS = {
  IFD0: { Make: 'Canon', Model: 'Canon EOS R6m2', Software: 'Firmware 1.2.0', Artist: 'Booth operator' },
  IFD2: {
    BodySerialNumber: '083021004567',
    LensModel: 'RF24-70mm F2.8 L IS USM',
    DateTimeOriginal: '2026:07:04 21:47:09',
    OffsetTimeOriginal: '-04:00',
  },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 2652/100', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 3942/100' },
}

/**
 * A photo as a booth's camera makes it: 5184×3456 by default, weighing what a camera's JPEG weighs
 * (5 to 8 MB), with EXIF orientation, GPS position, make, model and serial. Its scene has detail at
 * every scale (noise added at 1/256, 1/64, 1/16, 1/4 and full size, each level enlarged into the
 * next), so that its smaller copies weigh what a real photo's do: noise at one scale only would
 * average out when shrunk and make every copy look cheap. Made with sharp.
 */
export async function makeCameraJpeg(options: CameraOptions = {}): Promise<Buffer> {
  const { width = 5184, height = 3456, orientation = 1, tags = true, seed = 1, quality = 92 } = options
  let random = seed * 2654435761
  const next = () => ((random = (random * 1103515245 + 12345) >>> 0) >>> 16) & 255
  let pixels: Buffer | undefined
  let size = { width: 0, height: 0 }
  for (const [divisor, amplitude] of [
    [256, 60],
    [64, 40],
    [16, 28],
    [4, 18],
    [1, 10],
  ] as const) {
    const level = { width: Math.ceil(width / divisor), height: Math.ceil(height / divisor) }
    const bytes = pixels
      ? await sharp(pixels, { raw: { ...size, channels: 3 } })
          .resize(level.width, level.height, { kernel: 'cubic', fit: 'fill' })
          .raw()
          .toBuffer()
      : Buffer.alloc(level.width * level.height * 3, 128)
    for (let i = 0; i < bytes.length; i++) {
      const value = bytes[i]! + (((next() - 128) * amplitude) >> 7)
      bytes[i] = value < 0 ? 0 : value > 255 ? 255 : value
    }
    pixels = bytes
    size = level
  }
  let image = sharp(pixels, { raw: { ...size, channels: 3 } }).jpeg({ quality, chromaSubsampling: '4:2:0' })
  if (tags) image = image.withExif(CAMERA_TAGS)
  if (orientation !== 1 || tags) image = image.withMetadata({ orientation })
  return image.toBuffer()
}
