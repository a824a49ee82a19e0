import type { IncomingMessage, ServerResponse } from 'node:http'

import type { RequestHandler } from 'express'
import helmet from 'helmet'

/**
 * helmet's headers, exactly, computed once: with its defaults they do not depend on the request,
 * so running its thirteen middlewares on every answer only repeats the same work. Node's own
 * refusals (a malformed request line, oversized headers) send them too, so they are shared here.
 */
export const SECURITY_HEADERS: Map<string, string> = (() => {
  const headers = new Map<string, string>()
  const recorder = {
    setHeader: (name: string, value: string) => void headers.set(name, value),
    removeHeader: (name: string) => void headers.delete(name),
  }
  helmet()({} as IncomingMessage, recorder as unknown as ServerResponse, () => {})
  return headers
})()

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeaders(SECURITY_HEADERS)
  next()
}

/**
 * helmet's Content-Security-Policy for one of our own pages, widened only where the page needs it:
 * `img-src`/`connect-src` for the origins given (the photo CDN), and without
 * `upgrade-insecure-requests` where the service is served over plain HTTP (development, or a booth
 * laptop's LAN address), where the browser would otherwise ask for the page's assets over HTTPS,
 * which nothing answers. Over HTTPS, with the photos on the service's own origin, it is helmet's.
 */
export function pageSecurityPolicy(publicUrl: string, { imageOrigins = [] }: { imageOrigins?: string[] } = {}): string {
  const self = new URL(publicUrl).origin
  const others = [...new Set(imageOrigins)].filter((origin) => origin !== self)
  let policy = SECURITY_HEADERS.get('Content-Security-Policy')!
  if (others.length > 0) {
    policy = policy.replace(/img-src ([^;]*)/, `img-src $1 ${others.join(' ')}`)
    // Sharing a photo as a file fetches its bytes from the CDN.
    policy += `;connect-src 'self' ${others.join(' ')}`
  }
  if (publicUrl.startsWith('http:')) policy = policy.replace(/;?upgrade-insecure-requests/, '')
  return policy
}
