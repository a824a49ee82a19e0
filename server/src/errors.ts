import { ORPCError, ValidationError } from '@orpc/server'
import { ERROR_CODE_TABLE, genericErrorCode, isErrorCode, type ErrorCode } from '@photobooth/sdk/contract'
import { z } from 'zod'

/** oRPC's code for each status a domain error can have: what the SDK decodes the status as. */
const ORPC_CODES = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  417: 'EXPECTATION_FAILED',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<Status, string>

type Status = (typeof ERROR_CODE_TABLE)[ErrorCode]['status']

/** The status a code is answered with: each code has exactly one (ERROR_CODE_TABLE). */
export function statusOf(code: ErrorCode): Status {
  return ERROR_CODE_TABLE[code].status
}

/**
 * A domain error: answered as `{ error: message, code, ...extra }` with the code's status. It is an
 * ORPCError so that oRPC answers it as it is, with no translating layer on every call; the stable
 * code travels in `data`, which oRPC keeps whatever it makes of the error.
 */
export class AppError extends ORPCError<string, Record<string, unknown>> {
  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>, cause?: unknown) {
    const status = statusOf(code)
    super(ORPC_CODES[status], { status, message, data: { code, ...extra }, defined: true, cause })
    this.name = 'AppError'
  }
}

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
