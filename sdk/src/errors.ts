import { ORPCError } from '@orpc/client'

/** What the API answers for a domain error. Some errors add fields (a 422 lists `missing` keys). */
export type ErrorBody = { error: string } & Record<string, unknown>

/** What the API answers for a schema validation failure: zod's own shape. */
export type ValidationErrorBody = { success: false; error: { name: string; message: string } }

/** One field error of a validation failure: `path` is relative to the body or the path parameters. */
export type ValidationIssue = { code: string; path: (string | number)[]; message: string } & Record<string, unknown>

/** The error code the SDK gives each status the API answers; these are the contract's declared errors. */
export const ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

function isValidationErrorBody(body: unknown): body is ValidationErrorBody {
  return isObject(body) && body.success === false && isObject(body.error) && typeof body.error.message === 'string'
}

function parseIssues(message: string): ValidationIssue[] {
  try {
    const issues: unknown = JSON.parse(message)
    return Array.isArray(issues) ? (issues as ValidationIssue[]) : []
  } catch {
    return []
  }
}

/**
 * Turns the API's error bodies into typed `ORPCError`s: `code` from the status, `message` from
 * `error`, extra fields as `data`, and a validation failure's issues as `data.issues`.
 */
export function decodeErrorBody(body: unknown, response: { status: number }): ORPCError<string, unknown> | null {
  const { status } = response
  const code = ERROR_CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'UNKNOWN')
  if (isValidationErrorBody(body)) {
    return new ORPCError('BAD_REQUEST', {
      status,
      defined: true,
      message: 'Invalid input',
      data: { issues: parseIssues(body.error.message) },
    })
  }
  if (isObject(body) && typeof body.error === 'string') {
    const { error, ...extra } = body
    return new ORPCError(code, {
      status,
      defined: status in ERROR_CODES,
      message: error,
      data: Object.keys(extra).length > 0 ? extra : undefined,
    })
  }
  // Plain-text answers: `Unauthorized` from the booth routes, `Not Found` from the byte routes.
  if (typeof body === 'string') return new ORPCError(code, { status, defined: status in ERROR_CODES, message: body })
  return null
}
