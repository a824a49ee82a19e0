/**
 * The links guests follow, built from ids. The gallery page lives at `GALLERY_URL/<session id>`
 * (the server's setting, which may be another site than the API); the photo download and the zip
 * are on the API itself. Hand these URLs to the browser (`<a href download>`, `location.href`)
 * to let it stream the bytes to disk.
 */

const join = (base: string | URL, ...segments: string[]) =>
  `${String(base).replace(/\/+$/, '')}/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`

/** The gallery page of a session: `galleryBase` is the server's `GALLERY_URL`, e.g. `https://photos.example.com/g` (the service's own pages, by default `<API>/g`). */
export function galleryLink(galleryBase: string | URL, sessionId: string): string {
  return join(galleryBase, sessionId)
}

/** One photo as a file (`<label> <n>.jpg`), on the API: `GET /gallery/:sessionId/photos/:photoId/download`. */
export function photoDownloadUrl(apiBase: string | URL, sessionId: string, photoId: string): string {
  return join(apiBase, 'gallery', sessionId, 'photos', photoId, 'download')
}

/** Every photo of a session in one zip (`<label>.zip`), on the API: `GET /gallery/:sessionId/zip`. */
export function zipUrl(apiBase: string | URL, sessionId: string): string {
  return join(apiBase, 'gallery', sessionId, 'zip')
}
