/**
 * Helpers for showing a gallery's photos in your own front end: each photo's display copies
 * (`copies`: WebP, upright, 480, 720, 960 and 1600 px on the long side) are the candidates of a
 * `srcset`, so that a phone downloads a copy sized for its screen rather than the camera's original.
 */

/** What the helpers read of a photo as the gallery routes answer it. */
export type PhotoWithCopies = {
  url: string
  width: number
  height: number
  copies?: readonly { url: string; width: number; height: number }[]
}

/**
 * A `srcset` of the photo's display copies (`"<url> 480w, <url> 720w, <url> 960w, <url> 1600w"`); the full-size
 * photo alone while the copies are being made (seconds after completion). Give it a `sizes` too:
 * `<img src={pickPhotoCopy(photo, 480).url} srcset={photoSrcset(photo)} sizes="(max-width: 40rem) 50vw, 20rem">`.
 */
export function photoSrcset(photo: PhotoWithCopies): string {
  const copies = photo.copies ?? []
  if (copies.length === 0) return `${photo.url} ${photo.width}w`
  return copies.map((copy) => `${copy.url} ${copy.width}w`).join(', ')
}

/**
 * The image to show `cssWidth` CSS pixels wide on a screen of `devicePixelRatio`: the smallest display
 * copy at least that many device pixels wide, else the largest copy, else (no copies yet) the
 * full-size photo.
 */
export function pickPhotoCopy(
  photo: PhotoWithCopies,
  cssWidth: number,
  devicePixelRatio = 1,
): { url: string; width: number; height: number } {
  const copies = photo.copies ?? []
  if (copies.length === 0) return { url: photo.url, width: photo.width, height: photo.height }
  const needed = cssWidth * devicePixelRatio
  const chosen = copies.find((copy) => copy.width >= needed) ?? copies[copies.length - 1]!
  return { url: chosen.url, width: chosen.width, height: chosen.height }
}
