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
