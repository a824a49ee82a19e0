import { createORPCClient } from '@orpc/client'
import type { ContractRouterClient } from '@orpc/contract'
import { OpenAPILink } from '@orpc/openapi-client/fetch'

import type { Contract } from './contract/index.js'
import { decodeErrorBody } from './errors.js'
// The contract without its zod schemas: routes only. The server validates; the client needs paths.
import minifiedContract from './generated/contract.json' with { type: 'json' }

export { isDefinedError, ORPCError, safe } from '@orpc/client'
export type { Contract } from './contract/index.js'
export { decodeErrorBody, ERROR_CODES } from './errors.js'
export type { ErrorBody, ValidationErrorBody, ValidationIssue } from './errors.js'

export type PhotoBoothClient = ContractRouterClient<Contract>

export type ClientOptions = {
  /** Where the service runs, e.g. `https://booth.example.com`. */
  baseUrl: string | URL
  /** The booth key (`pbk_…`) for the /booth routes; sent as `Authorization: Bearer <key>`. */
  boothKey?: string
  /** Extra headers on every request. */
  headers?: Record<string, string>
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch
  /**
   * For the staff routes outside a browser (Node, scripts): keep the session cookie that
   * `staff.auth.signIn` sets and send it, with the service's own `Origin`, on every later call, as
   * a browser page of the service would. In a browser, leave it off: the browser keeps the
   * HttpOnly cookie itself (send `credentials: 'include'` through `fetch` across origins).
   */
  staffCookies?: boolean
}

const SESSION_COOKIE = /^((?:__Secure-)?photobooth\.session_token)=([^;]*)/

/** A fetch that holds the staff session cookie between calls, for clients without a cookie jar. */
function withStaffCookie(fetch: typeof globalThis.fetch, origin: string): typeof globalThis.fetch {
  let cookie: string | undefined
  return async (input, init) => {
    const request = new Request(input, init)
    if (cookie) request.headers.set('cookie', cookie)
    request.headers.set('origin', origin)
    const response = await fetch(request)
    for (const line of response.headers.getSetCookie()) {
      const match = SESSION_COOKIE.exec(line)
      // Sign-out answers an empty value: the session is over.
      if (match) cookie = match[2] ? `${match[1]}=${match[2]}` : undefined
    }
    return response
  }
}

/**
 * A typed client of every route: `client.kiosk.registerGuests({ params: { setId }, body: { guests } })`.
 * Failures throw `ORPCError` with `code`, `status`, `message` (the API's `error` text) and `data`.
 */
export function createClient(options: ClientOptions): PhotoBoothClient {
  const baseFetch: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const customFetch = options.staffCookies ? withStaffCookie(baseFetch, new URL(String(options.baseUrl)).origin) : options.fetch
  const link = new OpenAPILink(minifiedContract as unknown as Contract, {
    url: String(options.baseUrl).replace(/\/+$/, ''),
    headers: () => ({
      ...options.headers,
      ...(options.boothKey ? { authorization: `Bearer ${options.boothKey}` } : {}),
    }),
    fetch: customFetch ? (request, init) => customFetch(request, init) : undefined,
    customErrorResponseBodyDecoder: decodeErrorBody,
  })
  return createORPCClient(link)
}
