import type { Client, ThrowableError } from '@orpc/client'
import type { ContractProcedure, ErrorMapItem, InferSchemaInput, InferSchemaOutput, Schema } from '@orpc/contract'

import type { Contract } from './contract/index.js'
import type { ApiError, DeclaredErrors } from './errors.js'
import type { ERROR_CODE_TABLE, ErrorCode } from './error-codes.js'
// The contract without its zod schemas: routes and their declared error codes. The server validates.
import minifiedContract from './generated/contract.json' with { type: 'json' }
import { connect, type ClientOptions } from './client.js'
import { withStaffCookie } from './staff-cookie.js'
import type { CallContext } from './fetch-link.js'

export { ORPCError } from '@orpc/client'
export type { Contract } from './contract/index.js'
export {
  ApiError,
  decodeErrorBody,
  ERROR_CODES,
  errorCodeOf,
  isApiError,
  isDefinedError,
  NetworkError,
  safe,
  TimeoutError,
} from './errors.js'
export type { ErrorBody, ValidationErrorBody, ValidationIssue } from './errors.js'
export type { ClientOptions } from './client.js'
export { ERROR_CODE_LIST, ERROR_CODE_TABLE, isErrorCode } from './error-codes.js'
export type { ErrorCode } from './error-codes.js'
export type { CallContext } from './fetch-link.js'
export { pickPhotoCopy, photoSrcset } from './images.js'
export type { PhotoWithCopies } from './images.js'
export { galleryLink, photoDownloadUrl, zipUrl } from './urls.js'
export { isInFlightConflict } from './retry.js'
export type { RetryOptions } from './retry.js'
export { uploadPhotos } from './upload.js'
export type { CompletedSession, PhotoSource, StorageError, StorageErrorCode, UploadError, UploadOptions } from './upload.js'
export { SDK_VERSION } from './version.js'

/** The statuses of oRPC's codes that routes declare. */
type DeclaredStatus = {
  BAD_REQUEST: 400
  UNAUTHORIZED: 401
  FORBIDDEN: 403
  NOT_FOUND: 404
  CONFLICT: 409
  PAYLOAD_TOO_LARGE: 413
  UNPROCESSABLE_CONTENT: 422
  TOO_MANY_REQUESTS: 429
  INTERNAL_SERVER_ERROR: 500
  BAD_GATEWAY: 502
  SERVICE_UNAVAILABLE: 503
}

/** The stable codes answered with a status: `ErrorCodeOfStatus<404>` is `'not_found' | 'no_such_set' | …`. */
export type ErrorCodeOfStatus<TStatus extends number> = {
  [C in ErrorCode]: (typeof ERROR_CODE_TABLE)[C]['status'] extends TStatus ? C : never
}[ErrorCode]

/** A declared error's `data`: what the contract declares (`issues`, `missing`), and always the stable `code` of its status. */
type DataWithCode<TData, K> = ([TData] extends [undefined] ? Record<string, unknown> : Exclude<TData, undefined>) & {
  code: K extends keyof DeclaredStatus ? ErrorCodeOfStatus<DeclaredStatus[K]> : ErrorCode
  /** Registration's guest field (`guests.1.phone`), on `invalid_phone` and `missing_contact`. */
  field?: string
}

/** A route's defined errors: `ApiError<code, data>` for each code its contract declares, `data.code` its stable code. */
export type ApiErrorFromErrorMap<TErrorMap> = {
  [K in keyof TErrorMap]: K extends string
    ? TErrorMap[K] extends ErrorMapItem<infer TData extends Schema<unknown, unknown>>
      ? ApiError<K, DataWithCode<InferSchemaOutput<TData>, K>>
      : never
    : never
}[keyof TErrorMap]

/**
 * What a route's client can throw, for a shared handler's types:
 * `(error: RouteError<KioskClient['kiosk']['registerGuests']>) => …`, then `isDefinedError(error)`
 * narrows to the route's declared `ApiError`s.
 */
export type RouteError<TRoute> = TRoute extends Client<infer _C, infer _I, infer _O, infer E> ? E : never

/**
 * The stable codes a route's declared errors may carry (by the statuses it declares):
 * `RouteErrorCode<PhotoBoothClient['kiosk']['registerGuests']>` includes `'invalid_phone'`,
 * `'missing_contact'`, `'no_such_set'`, `'rate_limited'`, and not `'insufficient_role'`.
 */
export type RouteErrorCode<TRouteClient> =
  TRouteClient extends Client<CallContext, infer _I, infer _O, infer UError>
    ? UError extends ApiError<infer _K, infer UData>
      ? UData extends { code: infer UCode extends ErrorCode }
        ? UCode
        : never
      : never
    : never

/**
 * One route's client. It throws an `ApiError` of a code the route declares (`isDefinedError` is
 * true only for those), or another `Error`: an undeclared HTTP answer (`ApiError` with
 * `defined: false`), `NetworkError`, `TimeoutError`, or the `AbortSignal`'s reason.
 */
export type ProcedureClient<TInput, TOutput, TErrors> = Client<CallContext, TInput, TOutput, TErrors | ThrowableError>

export type RouterClient<TRouter> =
  TRouter extends ContractProcedure<infer UInput, infer UOutput, infer UErrorMap, infer _UMeta>
    ? ProcedureClient<InferSchemaInput<UInput>, InferSchemaOutput<UOutput>, ApiErrorFromErrorMap<UErrorMap>>
    : { [K in keyof TRouter]: RouterClient<TRouter[K]> }

/** A byte route's answer, unread: stream `body` to a file or a `Response`; it is never held in memory. */
export type BytesAnswer = { status: number; headers: Record<string, string>; body: ReadableStream<Uint8Array> }

/** The byte routes' real errors, which Express answers (plain `Not Found`; JSON 429 and 503). */
const BYTE_ROUTE_ERRORS = {
  'gallery.downloadPhoto': { NOT_FOUND: { status: 404 }, SERVICE_UNAVAILABLE: { status: 503 } },
  'gallery.downloadZip': { NOT_FOUND: { status: 404 }, TOO_MANY_REQUESTS: { status: 429 }, SERVICE_UNAVAILABLE: { status: 503 } },
} as const satisfies Record<string, DeclaredErrors>

type BytesClient<TProcedure, TCodes extends string> =
  TProcedure extends ContractProcedure<infer UInput, infer _UOutput, infer UErrorMap, infer _UMeta>
    ? ProcedureClient<InferSchemaInput<UInput>, BytesAnswer, ApiErrorFromErrorMap<UErrorMap> | ApiError<TCodes, undefined>>
    : never

type GalleryClient = Omit<RouterClient<Contract['gallery']>, 'downloadPhoto' | 'downloadZip'> & {
  /** The JPEG as a stream; 404 plain `Not Found` when the gallery is not live or the photo not in it. */
  downloadPhoto: BytesClient<Contract['gallery']['downloadPhoto'], keyof (typeof BYTE_ROUTE_ERRORS)['gallery.downloadPhoto']>
  /** The zip as a stream, with its exact `content-length`; 404 plain `Not Found`, 429 over 60 a minute. */
  downloadZip: BytesClient<Contract['gallery']['downloadZip'], keyof (typeof BYTE_ROUTE_ERRORS)['gallery.downloadZip']>
}

/** A typed client of every route: `client.kiosk.registerGuests({ params: { setId }, body: { guests } })`. */
export type PhotoBoothClient = Omit<RouterClient<Contract>, 'gallery'> & { gallery: GalleryClient }

/**
 * The one way to build a client, for a kiosk (`{ baseUrl }`), a booth (`{ baseUrl, boothKey }`)
 * or staff tools (`{ baseUrl, staffCookies: true }` in Node). Every request carries
 * `x-photobooth-sdk: <version>`; failures throw `ApiError` (typed per route), `NetworkError` or
 * `TimeoutError`. GETs, and non-GET kiosk, booth and staff calls (which carry an `Idempotency-Key`),
 * are retried with backoff on network errors, timeouts, 5xx and an in-flight 409.
 */
export function createClient(options: ClientOptions): PhotoBoothClient {
  return connect<PhotoBoothClient>(minifiedContract, options, { extraErrors: BYTE_ROUTE_ERRORS, keepStaffSession: withStaffCookie })
}
