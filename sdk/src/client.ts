import type { ClientLink, NestedClient } from '@orpc/client'

import type { DeclaredErrors } from './errors.js'
import { PhotoBoothLink, type CallContext } from './fetch-link.js'
import { resolveRetry, type RetryOptions } from './retry.js'
import { registerTransport } from './registry.js'
import type { FetchLike, Transport } from './transport.js'

export type ClientOptions = {
  /** Where the service runs, e.g. `https://booth.example.com`. */
  baseUrl: string | URL
  /** The booth key (`pbk_…`) for the /booth routes; sent as `Authorization: Bearer <key>`. */
  boothKey?: string
  /** Extra headers on every request. */
  headers?: Record<string, string>
  /**
   * A fetch implementation (defaults to the global one). It also sends the booth's photo uploads,
   * whose URLs (storage's, signed by the service) are absolute: a proxy in front of storage
   * rewrites them here, or with `uploadUrl`.
   */
  fetch?: typeof globalThis.fetch
  /**
   * Rewrites each signed upload URL before its PUT, e.g. to send it through a proxy of the venue's.
   * The URL's path and query must reach storage unchanged: they carry the signature.
   */
  uploadUrl?: (url: string) => string
  /**
   * For the staff routes outside a browser (Node, scripts): keep the session cookie that
   * `staff.auth.signIn` sets and send it, with the service's own `Origin`, on every later call, as
   * a browser page of the service would. In a browser, leave it off: the browser keeps the
   * HttpOnly cookie itself (pages of the service's own origin send it; see `credentials`).
   */
  staffCookies?: boolean
  /** fetch's `credentials` for every request. The service answers CORS only on its public routes (`CORS_ORIGINS`): staff pages belong on its own origin. */
  credentials?: RequestInit['credentials']
  /** Each try's timeout in ms, until its answer is read (for a stream, its headers). Default 15000; 0 for none. */
  timeoutMs?: number
  /**
   * A call's whole time in ms, its retries and their pauses included: then it fails with a
   * `TimeoutError` (naming its Idempotency-Key, to send again later). Default 30000; 0 for none.
   * Uploads of photos are not bound by it (each try has its own long timeout).
   */
  deadlineMs?: number
  /** Retries (see `RetryOptions`); `false` for none. */
  retry?: RetryOptions | false
  /** Sees every answer's `Response` (its headers: `x-request-id`, `Idempotent-Replayed`); do not read its body. */
  onResponse?: (response: Response) => void
}

/** Keys that callers and tools read off any object (`await`, `bind`, logging, JSON): never routes. */
const NOT_ROUTES = new Set(['then', 'bind', 'valueOf', 'toString', 'toJSON'])

/**
 * oRPC's `createORPCClient`, without what a fetch link does not use (event iterators): a function
 * per route path, made on access, that hands its call to the link; without oRPC's wrapping of
 * event iterators, which this link never answers. The client's types are oRPC's own.
 */
function routeClient(link: ClientLink<CallContext>, path: readonly string[] = []): unknown {
  const call = (input: unknown, options: { signal?: AbortSignal; context?: CallContext } = {}) =>
    link.call(path, input, { ...options, context: options.context ?? {} })
  return new Proxy(call, {
    get: (target, key) =>
      typeof key !== 'string' || NOT_ROUTES.has(key) ? (Reflect.get(target, key) as unknown) : routeClient(link, [...path, key]),
  })
}

/**
 * A client of the routes in `routes` (a minified contract of src/generated): what `createClient`
 * and the per-area entries (`/kiosk`, `/booth`, `/staff`) share, each with only the routes it ships.
 */
export function connect<TClient extends NestedClient<CallContext>>(
  routes: unknown,
  options: ClientOptions,
  more: {
    /** Error codes some routes answer beyond their contract's. */
    extraErrors?: Readonly<Record<string, DeclaredErrors>>
    /** Keeps the staff session for `staffCookies` (staff-cookie.ts): only the clients with staff routes ship it. */
    keepStaffSession?: (fetch: FetchLike, origin: string) => FetchLike
  } = {},
): TClient {
  const given = options.fetch
  const baseFetch: FetchLike = given ? (input, init) => given(input, init) : (input, init) => globalThis.fetch(input, init)
  const url = String(options.baseUrl).replace(/\/+$/, '')
  const transport: Transport = {
    fetch: options.staffCookies && more.keepStaffSession ? more.keepStaffSession(baseFetch, new URL(url).origin) : baseFetch,
    timeoutMs: options.timeoutMs ?? 15_000,
    deadlineMs: options.deadlineMs ?? 30_000,
    retry: resolveRetry(options.retry),
    credentials: options.credentials,
    onResponse: options.onResponse,
  }
  const link = new PhotoBoothLink(routes, {
    url,
    transport,
    headers: () => ({ ...options.headers, ...(options.boothKey ? { authorization: `Bearer ${options.boothKey}` } : {}) }),
    extraErrors: more.extraErrors ?? {},
  })
  const client = routeClient(link) as TClient
  // Storage uploads (upload.ts) use the same fetch, timeout and retries, never the headers.
  registerTransport(client, { ...transport, fetch: baseFetch, uploadUrl: options.uploadUrl, baseUrl: url })
  return client
}
