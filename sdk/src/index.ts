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
}

/**
 * A typed client of every route: `client.kiosk.registerGuests({ params: { setId }, body: { guests } })`.
 * Failures throw `ORPCError` with `code`, `status`, `message` (the API's `error` text) and `data`.
 */
export function createClient(options: ClientOptions): PhotoBoothClient {
  const customFetch = options.fetch
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
