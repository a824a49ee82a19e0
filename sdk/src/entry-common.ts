/** What every per-area entry (`/kiosk`, `/booth`, `/staff`) offers beside its client: the error helpers and types. */
export type { ClientOptions } from './client.js'
export type { ErrorCode } from './error-codes.js'
export { ApiError, errorCodeOf, isApiError, isDefinedError, NetworkError, safe, TimeoutError } from './errors.js'
export type { ErrorBody, ValidationErrorBody, ValidationIssue } from './errors.js'
export type { CallContext } from './fetch-link.js'
export type { RouteError, RouteErrorCode } from './index.js'
