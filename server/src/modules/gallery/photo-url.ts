/** The absolute URL of a stored photo on the CDN base; each key segment is URL-encoded. */
export function photoUrl(cdnUrl: string, storageKey: string): string {
  return `${cdnUrl}/${storageKey.split('/').map(encodeURIComponent).join('/')}`
}
