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

/** The EXIF a camera with a GPS receiver writes: where, with what, and which body. */
export const CAMERA_TAGS = {
  IFD0: { Make: 'Canon', Model: 'Canon EOS R6m2', Software: 'Firmware 1.2.0', Artist: 'Booth operator' },
  IFD2: { BodySerialNumber: '083021004567', LensModel: 'RF24-70mm F2.8 L IS USM' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 2652/100', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 3942/100' },
}

/**
 * A photo as a booth's camera makes it: 5184×3456 by default, a scene of smooth shapes under fine
 * sensor noise (so that it weighs what a camera's JPEG weighs, 5 to 8 MB, and shrinks as a photo
 * does), with EXIF orientation, GPS position, make, model and serial. Made with sharp.
 */
export async function makeCameraJpeg(options: CameraOptions = {}): Promise<Buffer> {
  const { width = 5184, height = 3456, orientation = 1, tags = true, seed = 1, quality = 92 } = options
  const pixels = Buffer.alloc(width * height * 3)
  let random = seed * 2654435761
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      random = (random * 1103515245 + 12345) >>> 0
      const noise = ((random >>> 16) & 31) - 16
      const at = (y * width + x) * 3
      const u = x / width
      const v = y / height
      pixels[at] = clamp(128 + 90 * Math.sin(6 * u + seed) * Math.cos(4 * v) + noise)
      pixels[at + 1] = clamp(110 + 80 * Math.cos(5 * v + seed * 0.7) + 30 * Math.sin(20 * u * v) + noise)
      pixels[at + 2] = clamp(100 + 100 * u * v + 40 * Math.sin(9 * (u + v) + seed) + noise)
    }
  }
  let image = sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality, chromaSubsampling: '4:2:0' })
  if (tags) image = image.withExif(CAMERA_TAGS)
  if (orientation !== 1 || tags) image = image.withMetadata({ orientation })
  return image.toBuffer()
}

const clamp = (value: number) => (value < 0 ? 0 : value > 255 ? 255 : Math.round(value))
