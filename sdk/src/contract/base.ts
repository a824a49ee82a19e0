import { oc } from '@orpc/contract'
import { z } from 'zod'

import { PathKey } from '../schemas/common.js'

/** One field error of a schema validation failure, as the server reports it. */
export const ValidationIssue = z.looseObject({
  code: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
})

/**
 * Errors every route can answer. A 400 is either a domain message (`{ error }`) or a schema
 * validation failure, whose field errors the SDK exposes as `data.issues`.
 */
/**
 * What the HTTP edge does for a route before oRPC sees it, declared on the route itself (its
 * `meta`) so that reading the contract tells its limits:
 * - `rateLimit`: at most `perMinute` requests a minute per client IP, counted in `bucket`;
 * - `textBody`: the body reaches the procedure as text whatever its declared type, cut at
 *   `maxBytes` of raw bytes with `tooLarge` (a status and the `error` text) as the answer, and
 *   refused with the 400 `{ error: notText }` when its bytes are not UTF-8.
 */
export type EdgePolicy = {
  rateLimit?: { bucket: string; perMinute: number }
  textBody?: { maxBytes: number; tooLarge: { status: 400 | 413; error: string }; notText: string }
}

export const base = oc.$meta<EdgePolicy>({}).errors({
  BAD_REQUEST: {
    status: 400,
    message: 'Bad request',
    data: z.object({ issues: z.array(ValidationIssue) }).optional(),
  },
  INTERNAL_SERVER_ERROR: { status: 500, message: 'Internal server error' },
})

export const notFound = { NOT_FOUND: { status: 404, message: 'Not found' } } as const

/** Routes limited per client IP (spec, section 8): 429 `{ error }`, without Retry-After. */
export const rateLimited = { TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests. Try again in a minute.' } } as const

/** The `{ error }` schema of the OpenAPI document, for routes that describe their own answers. */
export const ErrorRef = { $ref: '#/components/schemas/Error' }

/** A body the procedure checks itself, whose refusals are the spec's own words, not zod's shape. */
export const AnyBody = z.object({ body: z.unknown() })

/**
 * Every staff route needs a staff session (the cookie from `POST /api/auth/sign-in/email`); without
 * one it answers 401 `{ error }` (JSON: the plain `Unauthorized` is the booth's bearer failures).
 */
export const staffRead = base.errors({ UNAUTHORIZED: { status: 401, message: 'Staff sign-in required' } })

/** A staff change must come from a trusted origin (`Origin`, or `Referer`): otherwise 403, and nothing changes. */
export const staffWrite = staffRead.errors({ FORBIDDEN: { status: 403, message: 'Origin not trusted' } })

/** A path parameter, with the example the OpenAPI document shows for it. */
export const pathKey = (example: string) => PathKey.meta({ examples: [example] })

export const staffConflict = { CONFLICT: { status: 409, message: 'Conflict' } } as const
