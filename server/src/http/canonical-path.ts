import type { RequestHandler } from 'express'

/**
 * Express matches routes on the raw path, while oRPC reads the path as a WHATWG URL, which resolves
 * `/./`, `/x/../`, their `%2e` spellings and backslashes, and then skips empty segments. Rewritten first to what oRPC will see, so
 * that no spelling of a path reaches a procedure past the rate limit, body limit or authentication
 * mounted on that path (`POST /./track` is `POST /track` to every layer).
 */
export const canonicalPath: RequestHandler = (req, _res, next) => {
  const raw = req.url
  if (PLAIN.test(raw)) return next()
  let canonical: string | undefined
  try {
    // Built as oRPC builds it (standard-server-node), so that `//x` stays a path, not a host.
    const url = new URL(`http://localhost${raw.startsWith('/') ? '' : '/'}${raw}`)
    // And empty segments: oRPC's router skips them (`/track//` is `/track`), Express's does not.
    const pathname = url.pathname.replace(/\/{2,}/g, '/').replace(/(?<=.)\/$/, '') || '/'
    canonical = pathname.split('/').map(decodableSegment).join('/') + url.search
  } catch {
    // Not a URL at all: left to the routes, which will not match it.
  }
  if (canonical !== undefined && canonical !== raw) req.url = req.originalUrl = canonical
  next()
}

/** Letters, digits, `-`, `_`, `~` between single slashes, and such a query: nothing a URL would rewrite. */
const PLAIN = /^(?:\/[\w~-]+)+(?:\?[\w~.=&-]*)?$/

/**
 * A segment with a malformed %-escape (`%ff`, `%e0%a4%a`) names nothing, like any unknown id. Its `%`
 * are escaped so that it decodes to itself: Express would otherwise refuse the whole path with its own
 * 400, and the byte routes must answer their plain 404 (`no such gallery` elsewhere).
 */
function decodableSegment(segment: string): string {
  try {
    decodeURIComponent(segment)
    return segment
  } catch {
    return segment.replace(/%/g, '%25')
  }
}
