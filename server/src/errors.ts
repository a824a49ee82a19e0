import { ORPCError, ValidationError } from '@orpc/server'
import { ERROR_CODE_TABLE, genericErrorCode, isErrorCode, type ErrorCode } from '@photobooth/sdk/contract'
import { z } from 'zod'

type Status = (typeof ERROR_CODE_TABLE)[ErrorCode]['status']

/** The status a code is answered with: each code has exactly one (ERROR_CODE_TABLE). */
export function statusOf(code: ErrorCode): Status {
  return ERROR_CODE_TABLE[code].status
}

/**
 * A domain error, a refusal: answered as `{ error: message, code, ...extra }` with the code's status.
 * Its code is the domain's (`not_found`, `no_such_set`), never oRPC's (`NOT_FOUND`): compare the
 * code or the status, one thing each. It is an ORPCError so that oRPC answers it as it is, with no
 * translating layer on every call. Not `defined`: the contract declares oRPC's names, never a domain
 * code, so oRPC passes it on untouched (a defined error of an undeclared code it would re-make as a
 * plain ORPCError). The code is also in `data`, which the body is written from.
 */
export class AppError extends ORPCError<ErrorCode, Record<string, unknown>> {
  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>, cause?: unknown) {
    super(code, { status: statusOf(code), message, data: { code, ...extra }, cause })
    this.name = 'AppError'
  }
}

/**
 * A fault: what should not happen (a broken invariant, a dependency answering nonsense), answered
 * 500 with nothing of its text, and logged. A refusal the caller can act on is an AppError; a domain
 * file throws one of the two, never a built-in Error, which says neither (eslint.house-rules.js).
 */
export class Fault extends Error {}

/** A schema failure, as oRPC makes one for an input its schema refuses: what encodeErrorBody answers in the validator's shape. */
export const schemaFailure = (issues: ConstructorParameters<typeof ValidationError>[0]['issues']): ORPCError<'BAD_REQUEST', unknown> =>
  new ORPCError('BAD_REQUEST', { cause: new ValidationError({ message: 'Input validation failed', issues }) })

/** The `{ error, code }` body of the answers written outside oRPC (the edge's): one shape with the domain's. */
export const errorBody = (code: ErrorCode, message: string, extra?: Record<string, unknown>): CodedErrorBody => ({
  error: message,
  code,
  ...extra,
})

/** The `{ error }` answer: its text, its stable code, and any fields of its own (`field`, `missing`). */
export type CodedErrorBody = { error: string; code: ErrorCode } & Record<string, unknown>

/**
 * Every JSON error answer: `{ error, code, … }`, or a schema failure in the validator's shape,
 * exactly as the spec gives it (no `code`: the shape stays the spec's; the SDK names it `invalid_input`).
 */
export type ErrorAnswer = CodedErrorBody | { success: false; error: { name: string; message: string } }

export const INTERNAL_ERROR_BODY = errorBody('internal', 'Internal server error')

/** Inputs declared `detailed` carry their parts as the first path element: the client sent neither. */
const INPUT_PARTS = new Set<PropertyKey>(['params', 'query', 'headers', 'body'])

/**
 * The one place error bodies are shaped: schema failures in zod's own shape with paths relative
 * to the body or path parameters, domain errors as `{ error }`, and nothing of a fault's details.
 */
export function encodeErrorBody(error: ORPCError<string, unknown>): ErrorAnswer {
  // A 502 or 503 from the domain ("storage is not configured", with its code) is an answer; any other 5xx discloses nothing.
  const data: unknown = error.data
  const code = data !== null && typeof data === 'object' && 'code' in data && isErrorCode(data.code) ? data.code : undefined
  if (error.status >= 500 && code === undefined) return INTERNAL_ERROR_BODY
  if (error.cause instanceof ValidationError) {
    const issues = error.cause.issues.map((issue) => {
      const path = issue.path ?? []
      return { ...issue, path: path.length > 0 && INPUT_PARTS.has(path[0] as PropertyKey) ? path.slice(1) : path }
    })
    const zodError = new z.ZodError(issues as z.core.$ZodIssue[])
    // The spec's shape, exactly: its issues' paths are the fields (`guests.1.email`).
    return { success: false, error: { name: zodError.name, message: zodError.message } }
  }
  // oRPC's own 400 (a body that is not JSON) is a request it could not read.
  const fallback = error.status === 400 ? 'malformed_request' : genericErrorCode(error.status)
  return { error: error.message, code: code ?? fallback, ...(data !== null && typeof data === 'object' ? data : {}) }
}
