import { ORPCError, ValidationError } from '@orpc/server'
import { z } from 'zod'

export type AppErrorCode =
  'BAD_REQUEST' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT' | 'UNPROCESSABLE_CONTENT' | 'BAD_GATEWAY' | 'SERVICE_UNAVAILABLE'

export function statusOf(code: AppErrorCode): number {
  switch (code) {
    case 'BAD_REQUEST':
      return 400
    case 'FORBIDDEN':
      return 403
    case 'NOT_FOUND':
      return 404
    case 'CONFLICT':
      return 409
    case 'UNPROCESSABLE_CONTENT':
      return 422
    case 'BAD_GATEWAY':
      return 502
    case 'SERVICE_UNAVAILABLE':
      return 503
  }
}

/**
 * A domain error: answered as `{ error: message, ...extra }` with the code's status. It is an
 * ORPCError so that oRPC answers it as it is, with no translating layer on every call.
 */
export class AppError extends ORPCError<AppErrorCode, Record<string, unknown> | undefined> {
  constructor(code: AppErrorCode, message: string, extra?: Record<string, unknown>, cause?: unknown) {
    super(code, { status: statusOf(code), message, data: extra, defined: true, cause })
    this.name = 'AppError'
  }
}

export const INTERNAL_ERROR_BODY = { error: 'Internal server error' } as const

/** Inputs declared `detailed` carry their parts as the first path element: the client sent neither. */
const INPUT_PARTS = new Set<PropertyKey>(['params', 'query', 'headers', 'body'])

/**
 * The one place error bodies are shaped: schema failures in zod's own shape with paths relative
 * to the body or path parameters, domain errors as `{ error }`, and nothing of a fault's details.
 */
export function encodeErrorBody(error: ORPCError<string, unknown>): unknown {
  // A 502 or 503 from the domain ("storage is not configured") is an answer; any other 5xx discloses nothing.
  if (error.status >= 500 && !(error instanceof AppError)) return INTERNAL_ERROR_BODY
  if (error.cause instanceof ValidationError) {
    const issues = error.cause.issues.map((issue) => {
      const path = issue.path ?? []
      return { ...issue, path: path.length > 0 && INPUT_PARTS.has(path[0] as PropertyKey) ? path.slice(1) : path }
    })
    const zodError = new z.ZodError(issues as z.core.$ZodIssue[])
    return { success: false, error: { name: zodError.name, message: zodError.message } }
  }
  const data = error.data
  return { error: error.message, ...(data !== null && typeof data === 'object' ? data : {}) }
}
