/** The absolute URL of a stored photo on the CDN base; each key segment is URL-encoded. */
export function photoUrl(cdnUrl: string, storageKey: string): string {
  // Our own keys (`sessions/<id>/<n>.jpg`) need no encoding: most photos skip the split and join.
  if (URL_SAFE_KEY.test(storageKey)) return `${cdnUrl}/${storageKey}`
  return `${cdnUrl}/${storageKey.split('/').map(encodeURIComponent).join('/')}`
}

const URL_SAFE_KEY = /^[\w.~/-]+$/
