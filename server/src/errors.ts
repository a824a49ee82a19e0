import { ORPCError, ValidationError } from '@orpc/server'
import { z } from 'zod'

export type AppErrorCode = 'BAD_REQUEST' | 'NOT_FOUND' | 'CONFLICT' | 'UNPROCESSABLE_CONTENT' | 'SERVICE_UNAVAILABLE'

export function statusOf(code: AppErrorCode): number {
  switch (code) {
    case 'BAD_REQUEST':
      return 400
    case 'NOT_FOUND':
      return 404
    case 'CONFLICT':
      return 409
    case 'UNPROCESSABLE_CONTENT':
      return 422
    case 'SERVICE_UNAVAILABLE':
      return 503
  }
}

/** A domain error: answered as `{ error: message, ...extra }` with the code's status. */
export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'AppError'
  }

  toORPCError(): ORPCError<AppErrorCode, Record<string, unknown> | undefined> {
    return new ORPCError(this.code, {
      status: statusOf(this.code),
      message: this.message,
      data: this.extra,
      defined: true,
      cause: this,
    })
  }
}

export const INTERNAL_ERROR_BODY = { error: 'Internal server error' } as const

/**
 * The one place error bodies are shaped: schema failures in zod's own shape with paths relative
 * to the body or path parameters, domain errors as `{ error }`, and nothing of a fault's details.
 */
export function encodeErrorBody(error: ORPCError<string, unknown>): unknown {
  // A 503 is a domain answer ("storage is not configured"); any other 5xx discloses nothing.
  if (error.status >= 500 && !(error.cause instanceof AppError)) return INTERNAL_ERROR_BODY
  if (error.cause instanceof ValidationError) {
    // Inputs are declared `detailed` ({ params, body }); the client only knows the body and the path.
    const issues = error.cause.issues.map((issue) => ({ ...issue, path: (issue.path ?? []).slice(1) }))
    const zodError = new z.ZodError(issues as z.core.$ZodIssue[])
    return { success: false, error: { name: zodError.name, message: zodError.message } }
  }
  const data = error.data
  return { error: error.message, ...(data !== null && typeof data === 'object' ? data : {}) }
}
