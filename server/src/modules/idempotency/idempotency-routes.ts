/**
 * Which routes take an `Idempotency-Key`, and the headers' names: shared by the middleware and the
 * OpenAPI document (openapi.ts), without the middleware's dependencies.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'
export const REPLAYED_HEADER = 'Idempotent-Replayed'

/**
 * The routes that take a key: every change of the kiosk (`/sets/…`), the booth and staff. Not the
 * public reads, `/track`, `/contact`, nor Better Auth's `/api/auth` routes. `path` is a contract path
 * (`/sets/{setId}/sessions`) or an Express one (`/sets/:setId/sessions`).
 */
export function takesIdempotencyKey(method: string, path: string): boolean {
  return method.toUpperCase() !== 'GET' && /^\/(sets|booth|staff)\//.test(path)
}
