import { oc } from '@orpc/contract'
import { z } from 'zod'

import { PathKey } from '../schemas/common.js'
import type { STAFF_ROLES } from '../schemas/staff.js'

import type { ErrorCode } from './error-codes.js'

/** One field error of a schema validation failure, as the server reports it. */
export const ValidationIssue = z.looseObject({
  code: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
})

/**
 * What the HTTP edge does for a route before oRPC sees it, declared on the route itself (its
 * `meta`) so that reading the contract tells its limits:
 * - `rateLimit`: at most `perMinute` requests a minute per client IP, counted in `bucket`;
 * - `textBody`: the body reaches the procedure as text whatever its declared type, cut at
 *   `maxBytes` of raw bytes with `tooLarge` (a status, the `error` text and its `code`) as the answer,
 *   and refused with the 400 `notText` (its `error` text and `code`) when its bytes are not UTF-8;
 * - `body`: a body limit of the route's own (the API's is 64 KB), `maxBytes` of raw bytes, and the
 *   one 400 (`refused`: its `error` text and `code`) for a body over it, not UTF-8, or not of its media type.
 */
export type EdgePolicy = {
  rateLimit?: { bucket: string; perMinute: number }
  /**
   * The answer holds a secret shown once (a booth key, a one-time password): it is never stored, so
   * the route takes no `Idempotency-Key` (a retry would replay the secret from the database).
   */
  secretAnswer?: true
  textBody?: {
    maxBytes: number
    tooLarge: { status: 400 | 413; error: string; code: ErrorCode }
    notText: { error: string; code: ErrorCode }
  }
  body?: { maxBytes: number; refused: { error: string; code: ErrorCode } }
  /**
   * A staff route's least role (`STAFF_ROLES`: owner, then manager, then staff): a member below it
   * is answered 403 and nothing changes. Every staff route declares one (test/staff/roles.test.ts).
   */
  role?: StaffRoleName
}

type StaffRoleName = (typeof STAFF_ROLES)[number]

/**
 * Errors every route can answer. A 400 is either a domain message (`{ error }`) or a schema
 * validation failure, whose field errors the SDK exposes as `data.issues`.
 */
const BAD_REQUEST = {
  status: 400,
  message: 'Bad request',
  data: z.object({ issues: z.array(ValidationIssue) }).optional(),
} as const

export const base = oc.$meta<EdgePolicy>({}).errors({
  BAD_REQUEST,
  INTERNAL_SERVER_ERROR: { status: 500, message: 'Internal server error' },
  // The database or photo storage did not answer in time: `{ error }` names which, with a Retry-After.
  SERVICE_UNAVAILABLE: { status: 503, message: 'The database is unavailable. Try again in a moment.' },
})

/**
 * A declared error with the stable codes (`ERROR_CODE_TABLE`) its route answers with that status:
 * what the OpenAPI document lists as that response's `code` enum and describes, beside the codes
 * the edge may answer on every route of its kind (a malformed request, a rate limit, an outage…),
 * which the document adds itself (server/src/openapi.ts). Only the document reads `codes`; oRPC
 * reads an error's `status`, `message` and `data`.
 */
export const withCodes = <const T extends { status: number }>(error: T, ...codes: [ErrorCode, ...ErrorCode[]]) => ({ ...error, codes })

export const notFound = { NOT_FOUND: { status: 404, message: 'Not found' } } as const

/** A 404 naming what was not found (`no_such_set`, …). */
export const notFoundOf = (...codes: [ErrorCode, ...ErrorCode[]]) => ({ NOT_FOUND: withCodes(notFound.NOT_FOUND, ...codes) })

/** A 409 of the route's own, by its codes (a route that takes an `Idempotency-Key` also answers `idempotency_in_flight`). */
export const conflictOf = (...codes: [ErrorCode, ...ErrorCode[]]) => ({ CONFLICT: withCodes(staffConflict.CONFLICT, ...codes) })

/** A 503 of photo storage, by its codes: not configured on this deployment, or (when the route reads it) away. */
export const storageUnavailableOf = (...codes: [ErrorCode, ...ErrorCode[]]) => ({
  SERVICE_UNAVAILABLE: withCodes({ status: 503, message: 'Photo storage is not configured' }, ...codes),
})

/** A 400 of the route's own words, beside schema failures (`invalid_input`) and the edge's refusals. */
export const badRequestOf = (...codes: [ErrorCode, ...ErrorCode[]]) => ({ BAD_REQUEST: withCodes(BAD_REQUEST, ...codes) })

/** Routes limited per client IP (60 a minute; sign-in 10): 429 `{ error }`, without Retry-After. */
export const rateLimited = { TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests. Try again in a minute.' } } as const

/** The `{ error }` schema of the OpenAPI document, for routes that describe their own answers. */
export const ErrorRef = { $ref: '#/components/schemas/ErrorBody' }

/** A body the procedure checks itself, whose refusals are the spec's own words, not zod's shape. */
export const AnyBody = z.object({ body: z.unknown() })

/**
 * Every staff route needs a staff session (the cookie from `POST /api/auth/sign-in/email`); without
 * one it answers 401 `{ error }` (JSON: the plain `Unauthorized` is the booth's bearer failures).
 */
export const staffRead = base.errors({
  UNAUTHORIZED: { status: 401, message: 'Staff sign-in required' },
  // The member's role is below the route's (its `role`).
  FORBIDDEN: { status: 403, message: 'Your role does not allow this' },
})

/** A staff change must come from a trusted origin (`Origin`, or `Referer`): otherwise 403, and nothing changes. */
export const staffWrite = staffRead.errors({ FORBIDDEN: { status: 403, message: 'Origin not trusted' } })

/**
 * What a change that takes an `Idempotency-Key` (`takesIdempotencyKey`) may answer besides its own
 * errors: 409 while the first request with the key still runs, 422 for the key reused on another
 * request. Declared, so that clients can tell them (a route's own 409 or 422 keeps its own words).
 */
export const idempotencyErrors = {
  CONFLICT: { status: 409, message: 'A request with this Idempotency-Key is still running', data: z.undefined() },
  UNPROCESSABLE_CONTENT: { status: 422, message: 'This Idempotency-Key was already used for another request', data: z.undefined() },
} as const

/** A staff change that takes an `Idempotency-Key`: every one but those whose answer holds a secret. */
export const staffChange = staffWrite.errors(idempotencyErrors)

/** A path parameter, with the example the OpenAPI document shows for it. */
export const pathKey = (example: string) => PathKey.meta({ examples: [example] })

export const staffConflict = { CONFLICT: { status: 409, message: 'Conflict' } } as const

/**
 * Whether a route takes an `Idempotency-Key` (the server keeps its first answer and replays it): every
 * change of the kiosk (`/sets/…`), the booth and staff, but one whose answer holds a secret. Not the
 * reads, `/track`, `/contact`, nor Better Auth's sign-in routes. One rule for the server, the document
 * and the SDK (which retries only reads and keyed changes).
 */
export function takesIdempotencyKey(route: { method?: string; path?: string }, meta: EdgePolicy): boolean {
  return (route.method ?? 'POST') !== 'GET' && /^\/(sets|booth|staff)\//.test(route.path ?? '') && !meta.secretAnswer
}
