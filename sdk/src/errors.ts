import type { ClientPromiseResult, ORPCError, SafeResult } from '@orpc/client'

import type { ErrorCode } from './error-codes.js'
import ORPC_STATUS_CODES from './generated/orpc-status-codes.json' with { type: 'json' }

/**
 * What the API answers for a domain error: the text and its stable `code`. Some errors add fields
 * (`field` at registration, a 422's `missing` keys).
 */
export type ErrorBody = { error: string; code?: ErrorCode; field?: string } & Record<string, unknown>

/** What the API answers for a schema validation failure: zod's own shape (the SDK gives it `data.code: 'invalid_input'`). */
export type ValidationErrorBody = { success: false; error: { name: string; message: string } }

/** One field error of a validation failure: `path` is relative to the body or the path parameters. */
export type ValidationIssue = { code: string; path: (string | number)[]; message: string } & Record<string, unknown>

/**
 * The code the SDK gives each status when the route does not declare one for it (an undeclared
 * status is never a defined error: `isDefinedError` is false and the code is only informative):
 * oRPC's own names (`NOT_FOUND`, `TOO_MANY_REQUESTS`…), generated from its table (`pnpm generate`).
 */
export const ERROR_CODES: Readonly<Record<number, string>> = ORPC_STATUS_CODES

/** The stable code of the service's plain-text answers (a booth's bearer failure, a byte route's 404). */
const PLAIN_TEXT_CODES: Readonly<Record<number, ErrorCode>> = { 401: 'unauthorized', 404: 'not_found' }

/** The error codes a route declares, with their statuses: what the minified contract carries. */
export type DeclaredErrors = Readonly<Record<string, { status?: number } | undefined>>

type ApiErrorOptions<TData> = {
  status: number
  message: string
  data: TData
  defined: boolean
  requestId?: string | undefined
  headers?: Headers | undefined
  cause?: unknown
}

/**
 * oRPC's registry of its error classes: `instanceof ORPCError` holds for an instance of any class in
 * it (oRPC made it for two copies of itself in one app). `ApiError` joins it rather than extending
 * `ORPCError`, so that oRPC's `instanceof` and `isDefinedError` hold for it while a kiosk's bundle
 * ships none of oRPC's error code (about 2.9 KB of 4.7). The key names oRPC's version, pinned in
 * package.json; test/sdk/sdk-client.test.ts fails if it stops matching.
 */
const ORPC_ERROR_CONSTRUCTORS = Symbol.for('__@orpc/client@1.16.1/error/ORPC_ERROR_CONSTRUCTORS__')

/**
 * Every HTTP error answer, from the API or from storage: an `ORPCError` to oRPC (`instanceof
 * ORPCError` and oRPC's `isDefinedError` hold) with the response's request id and headers.
 *
 * - `status`: the HTTP status; `code`: the route's declared code for it (`NOT_FOUND`, …);
 * - `defined`: true only when the route declares that status, so a `switch` over `code` after
 *   `isDefinedError` is exhaustive; anything else is a generic HTTP error (`defined: false`);
 * - `message`: the API's `error` text (plain `Not Found`/`Unauthorized` for the plain answers);
 * - `data`: the stable `code` of every JSON error answer (`no_such_set`, `invalid_phone`: see
 *   `ERROR_CODE_TABLE`), a guest's `field` (`guests.1.phone`), a schema failure's `issues`, a 422's
 *   `missing`/`notJpeg`, storage's `storageCode`;
 * - `requestId`: the `x-request-id` response header, when the server sends one.
 */
export class ApiError<TCode extends string = string, TData = unknown> extends Error implements ORPCError<TCode, TData> {
  static {
    const registry = globalThis as { [ORPC_ERROR_CONSTRUCTORS]?: WeakSet<object> }
    ;(registry[ORPC_ERROR_CONSTRUCTORS] ??= new WeakSet()).add(ApiError)
  }
  override name = 'ApiError'
  readonly code: TCode
  readonly status: number
  readonly defined: boolean
  readonly data: TData
  readonly requestId: string | undefined
  /** The response headers (an empty `Headers` when there were none). */
  readonly headers: Headers

  constructor(code: TCode, options: ApiErrorOptions<TData>) {
    super(options.message, { cause: options.cause })
    this.code = code
    this.status = options.status
    this.defined = options.defined
    this.data = options.data
    this.requestId = options.requestId
    this.headers = options.headers ?? new Headers()
  }

  /** What oRPC's `ORPCError` serializes. */
  toJSON(): { defined: boolean; code: TCode; status: number; message: string; data: TData } {
    return { defined: this.defined, code: this.code, status: this.status, message: this.message, data: this.data }
  }
}

/**
 * Whether anything is an oRPC error to oRPC itself: an `ApiError`, oRPC's `ORPCError` (any copy of
 * it in the app) or a subclass of one, as oRPC's own `instanceof ORPCError` decides, by its registry.
 */
function isORPCError(error: unknown): error is ORPCError<string, unknown> {
  if (error instanceof ApiError) return true
  const registry = (globalThis as { [ORPC_ERROR_CONSTRUCTORS]?: WeakSet<object> })[ORPC_ERROR_CONSTRUCTORS]
  for (let proto: unknown = isObject(error) ? Object.getPrototypeOf(error) : null; isObject(proto); proto = Object.getPrototypeOf(proto))
    if (typeof proto.constructor === 'function' && registry?.has(proto.constructor)) return true
  return false
}

/**
 * Whether a caught error is an answer its route declares: narrows a route's errors to its declared
 * `ApiError`s, so that a `switch` over `code` is exhaustive. oRPC's `isDefinedError`, which also
 * takes oRPC's own `ORPCError`s (an app's other oRPC clients).
 */
export function isDefinedError<T>(error: T): error is Extract<T, ORPCError<string, unknown>> {
  return isORPCError(error) && error.defined
}

/**
 * A call's outcome as `[error, data, isDefined, isSuccess]` (also as named fields), never thrown:
 * `const [error, session] = await safe(client.kiosk.registerGuests(…))`. oRPC's `safe`, for `ApiError`.
 */
export async function safe<TOutput, TError>(promise: ClientPromiseResult<TOutput, TError>): Promise<SafeResult<TOutput, TError>> {
  let outcome: [error: unknown, data: unknown, isDefined: boolean, isSuccess: boolean]
  try {
    outcome = [null, await promise, false, true]
  } catch (error) {
    outcome = [error, undefined, isDefinedError(error), false]
  }
  const [error, data, isDefined, isSuccess] = outcome
  return Object.assign(outcome, { error, data, isDefined, isSuccess }) as SafeResult<TOutput, TError>
}

/**
 * The request never got an answer: DNS, refused or reset connection, offline, CORS. `cause` is fetch's
 * error; `idempotencyKey`, the key the call was sent with (a kiosk, booth or staff change), to send it
 * again with later.
 */
export class NetworkError extends Error {
  override name = 'NetworkError'
  idempotencyKey: string | undefined
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** No answer within the timeout (the client's `timeoutMs`, or the call's `context.timeoutMs`); `idempotencyKey` as for `NetworkError`. */
export class TimeoutError extends Error {
  override name = 'TimeoutError'
  idempotencyKey: string | undefined
  constructor(readonly timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms`)
  }
}

/**
 * Whether anything caught is an answer of the API (or storage): narrows an `unknown` (a shared
 * handler's) to `ApiError`, where `isDefinedError` on an `unknown` narrows to nothing useful.
 */
export function isApiError(error: unknown): error is ApiError<string, unknown> {
  return error instanceof ApiError
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

/** The declared code for a status, if the route declares one. */
export function declaredCode(declared: DeclaredErrors | undefined, status: number): string | undefined {
  for (const code in declared) if (declared[code]?.status === status) return code
  return undefined
}

/**
 * Turns an error answer's body into an `ApiError`: `code` from the route's declared codes (else
 * from `ERROR_CODES`, not defined), `message` from `error`, extra fields as `data`, a validation
 * failure's issues as `data.issues`, a text answer as the message (storage's XML is read by the
 * upload helper).
 */
export function decodeErrorBody(
  body: unknown,
  response: { status: number; headers?: Headers },
  declared?: DeclaredErrors,
): ApiError<string, unknown> {
  const { status, headers } = response
  const own = declaredCode(declared, status)
  const code = own ?? ERROR_CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'UNKNOWN')
  const base = { status, defined: own !== undefined, requestId: headers?.get('x-request-id') ?? undefined, headers }
  if (isValidationErrorBody(body)) {
    const issues = parseIssues(body.error.message)
    return new ApiError(code, {
      ...base,
      message: 'Invalid input',
      // The spec's shape has no code of its own: every schema failure is the same one.
      data: { issues, code: 'invalid_input' satisfies ErrorCode },
    })
  }
  if (isObject(body) && typeof body.error === 'string') {
    const { error, ...extra } = body
    return new ApiError(code, { ...base, message: error, data: Object.keys(extra).length > 0 ? extra : undefined })
  }
  if (typeof body === 'string') {
    // Plain-text answers: `Unauthorized` from the booth routes, `Not Found` from the byte routes. The
    // spec gives them no code; the SDK names them by their status, as a declared error's type says.
    const plainCode = PLAIN_TEXT_CODES[status]
    return new ApiError(code, { ...base, message: body || `HTTP ${status}`, data: plainCode ? { code: plainCode } : undefined })
  }
  return new ApiError(code, { ...base, message: `HTTP ${status}`, data: body })
}

/**
 * Whether a body's `code` has the form of the service's codes. Not checked against the table of
 * codes (error-codes.ts): a client would ship every code's meaning (7 KB) for it, and a newer
 * server's new code must still reach the app.
 */
const isCodeLike = (value: unknown): value is ErrorCode => typeof value === 'string' && /^[a-z][a-z0-9_]*$/.test(value)

/**
 * The stable code of anything caught (`no_such_set`, `invalid_phone`, `rate_limited`): `data.code`
 * of an `ApiError` from an error answer (the plain-text `Unauthorized` and `Not Found` are named by
 * their status), undefined for anything else (a network error, an older server's JSON answer).
 */
export function errorCodeOf(error: unknown): ErrorCode | undefined {
  if (!(error instanceof ApiError)) return undefined
  const data: unknown = error.data
  return isObject(data) && isCodeLike(data.code) ? data.code : undefined
}

/** Reads an error response's body (JSON, text or XML) and decodes it. */
export async function errorFromResponse(response: Response, declared?: DeclaredErrors): Promise<ApiError<string, unknown>> {
  const text = await response.text()
  let body: unknown = text
  if (/json/i.test(response.headers.get('content-type') ?? '')) {
    try {
      body = JSON.parse(text)
    } catch {
      // Not JSON after all: keep the text.
    }
  }
  return decodeErrorBody(body, response, declared)
}
