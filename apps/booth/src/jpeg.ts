import { open } from 'node:fs/promises'

/** What the service takes: a JPEG of at most 25 MB (storage refuses a larger upload). */
export const MAX_PHOTO_BYTES = 25 * 1024 * 1024

/**
 * Why a file cannot be delivered as a photo, or undefined when it can: it must be a whole JPEG (its
 * first bytes the SOI marker and an image marker, its last the EOI marker, which a file cut short
 * lacks), not empty, not over the limit. Read, never changed.
 */
export async function whyNotAPhoto(path: string): Promise<string | undefined> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    if (size === 0) return 'empty file'
    if (size > MAX_PHOTO_BYTES) return `too large (${size} bytes; the service takes ${MAX_PHOTO_BYTES} at most)`
    const head = Buffer.alloc(4)
    await file.read(head, 0, 4, 0)
    if (head[0] !== 0xff || head[1] !== 0xd8 || head[2] !== 0xff) return `not a JPEG (${kindOf(head)})`
    // A JPEG ends with EOI (FF D9); a camera or a tool may pad a few bytes after it.
    const tailLength = Math.min(size, 64)
    const tail = Buffer.alloc(tailLength)
    await file.read(tail, 0, tailLength, size - tailLength)
    if (!tail.includes(Buffer.from([0xff, 0xd9]))) return 'truncated JPEG (no end-of-image marker: the file was cut short)'
    return undefined
  } finally {
    await file.close()
  }
}

function kindOf(head: Buffer): string {
  if (head.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return 'a PNG image'
  if (head.subarray(0, 3).toString('latin1') === 'GIF') return 'a GIF image'
  if (head.subarray(0, 4).toString('latin1') === 'RIFF') return 'a RIFF file (WebP, AVI)'
  return 'unknown content'
}
