import type { ErrorCode } from '@photobooth/sdk/contract'

import { AppError, errorBody, type CodedErrorBody } from './errors.js'
import { describeError, type Logger } from './logger.js'
import type { Dependency, Metrics } from './metrics.js'

/**
 * A dependency that failed or did not answer in time, rather than a fault of ours: answered 503 with
 * what is unavailable and a `Retry-After` (the one answer with that header: the 429s carry
 * none), logged as a warning, counted in `photobooth_dependency_errors_total`.
 */
export type Outage = Exclude<Dependency, 'redis'>

/** Thrown by the storage adapters when the bucket failed or did not answer (not for a missing object). */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`storage unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'StorageUnavailableError'
  }
}

/** What a client is told, in the API's `{ error }` shape. */
export const UNAVAILABLE_MESSAGES: Record<Outage, string> = {
  database: 'The database is unavailable. Try again in a moment.',
  storage: 'Photo storage is unavailable. Try again in a moment.',
}

/** The stable code of each outage's 503. */
export const UNAVAILABLE_CODES = { database: 'database_unavailable', storage: 'storage_unavailable' } as const satisfies Record<
  Outage,
  ErrorCode
>

/** A dependency's outage is a failover or a restart away from over: asked back after this long. */
export const RETRY_AFTER_SECONDS = 5

/** An outage's 503 body, for the answers written outside oRPC. */
export const unavailableBody = (outage: Outage): CodedErrorBody => errorBody(UNAVAILABLE_CODES[outage], UNAVAILABLE_MESSAGES[outage])

export function unavailableError(outage: Outage, cause: unknown): AppError {
  return new AppError(UNAVAILABLE_CODES[outage], UNAVAILABLE_MESSAGES[outage], undefined, cause)
}

/**
 * PostgreSQL's SQLSTATEs of a server that cannot serve: connection exceptions (08), too many
 * connections, a statement cancelled by `statement_timeout` (57014), the server shutting down or
 * restarting (57P01-57P03).
 */
const DATABASE_STATES = /^(08...|53300|57014|57P0[1-3])$/

/**
 * pg's and knex's words when the connection is lost, cannot be made (pg's connect timeout is
 * "timeout expired"), or does not answer; and knex's when a transaction's statement timed out and the
 * next one finds it over.
 */
const DATABASE_WORDS =
  /Connection terminated|Query read timeout|^timeout expired$|timeout exceeded when trying to connect|Timeout acquiring a connection|Client has encountered a connection error|the database system is (starting up|shutting down)|Transaction query already complete/

/**
 * A socket's failure: on a request's path only the database's sockets can fail that way (storage's
 * failures come wrapped as `StorageUnavailableError`, Redis's never reach a request, and an HTTP
 * call's come as fetch's "fetch failed", which is not followed).
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])

/**
 * An outage a request met: a warning (not a fault of ours), and for the database its count (each
 * failed storage call is counted where it fails, by the storage adapter).
 */
export function noteOutage(outage: Outage, error: unknown, deps: { logger: Logger; metrics: Pick<Metrics, 'dependencyErrors'> }): void {
  if (outage === 'database') deps.metrics.dependencyErrors.inc({ dependency: outage })
  deps.logger.warn(`${outage} unavailable: answered 503`, { error: describeError(error) })
}

/** Which dependency's outage `error` (or one of its causes) is, if it is one. */
export function outageOf(error: unknown): Outage | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof StorageUnavailableError) return 'storage'
    if (current instanceof AppError) return undefined
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && DATABASE_STATES.test(code)) return 'database'
    if (current.name === 'KnexTimeoutError' || DATABASE_WORDS.test(current.message)) return 'database'
    if (current.message === 'fetch failed') return undefined
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'database'
  }
  return undefined
}
