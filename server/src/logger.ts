import { AsyncLocalStorage } from 'node:async_hooks'

import { pino, type Level } from 'pino'

/** Structured JSON lines (pino), one record per line: for people and for log shippers. */
export type Logger = {
  info: (message: string, fields?: Record<string, unknown>) => void
  warn: (message: string, fields?: Record<string, unknown>) => void
  error: (message: string, error?: unknown) => void
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/**
 * What every line logged while a request is handled carries (its `requestId`), without passing a
 * logger down: set by the request-id middleware for the rest of the request's work.
 */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>()

export function createLogger(options: { silent?: boolean; level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const level = options.silent ? 'silent' : (options.level ?? 'info')
  const destination = options.write ? { write: options.write } : pino.destination(1)
  const log = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => requestContext.getStore() ?? {},
    },
    destination,
  )
  const at = (levelName: Level) => (message: string, fields?: Record<string, unknown>) => log[levelName](fields ?? {}, message)
  return {
    info: at('info'),
    warn: at('warn'),
    error: (message, error) => log.error(error === undefined ? {} : { error: describeError(error) }, message),
  }
}

type DatabaseError = Error & { code: string; constraint?: unknown; table?: unknown; column?: unknown; routine?: unknown }

/** PostgreSQL's errors carry a five-character SQLSTATE; MikroORM's copy it. */
const isDatabaseError = (error: Error): error is DatabaseError => {
  const { code } = error as { code?: unknown }
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)
}

/**
 * An error as logged: its name, its code where it has one, where it happened, and its words with
 * every guest's value taken out (`redact`). Any error may carry a statement with its values written
 * in, not only PostgreSQL's: a connection dropped mid-query has no SQLSTATE, and the driver's
 * message still holds the statement. A database error's `detail` (the conflicting values) is never
 * read.
 */
export function describeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redact(error) : error
  const code = (error as { code?: unknown }).code
  return {
    name: error.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(isDatabaseError(error) ? pick(error, ['constraint', 'table', 'column', 'routine']) : {}),
    message: redact(error.message),
    stack: error.stack && redact(error.stack),
    ...(error.cause !== undefined && depth < 3 ? { cause: describeError(error.cause, depth + 1) } : {}),
  }
}

/**
 * A text as it may be logged: where it holds a statement, its literals become `?` and PostgreSQL's
 * detail goes (`withoutValues`; other quoted words, such as a file's path, stay); a session's id, the secret of its gallery link, becomes `…` wherever it stands
 * (`withoutSessionIds`); and an address or a phone number left in a message is masked, should a
 * library have quoted one some other way.
 */
export const redact = (text: string): string =>
  withoutSessionIds(STATEMENT.test(text) ? withoutValues(text) : text)
    .replace(/[^\s@'"/<>()]+@[^\s@'"/<>()]+\.[A-Za-z]{2,}/g, '…@…')
    .replace(/\+\d{7,15}\b/g, '+…')

const STATEMENT = /\b(select|insert into|update|delete from|returning)\b/i

/**
 * A session id is a gallery's secret link: storage errors name objects by it (`sessions/<id>/…`), a
 * gallery link carries it, and a statement may hold it. Ids are 22 random URL-safe characters
 * (ids.ts); a word of that length with digits and both cases is taken for one.
 */
export const withoutSessionIds = (text: string) =>
  text
    .replace(/sessions\/[A-Za-z0-9_-]{1,64}\//g, 'sessions/…/')
    .replace(
      /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]{0,21}[0-9])(?=[A-Za-z0-9_-]{0,21}[a-z])(?=[A-Za-z0-9_-]{0,21}[A-Z])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g,
      '…',
    )

/** The statement and PostgreSQL's own words, without the values: literals become `?`, the detail goes. */
export function withoutValues(message: string): string {
  return message.split('\n - detail:')[0]!.replace(/E?'(?:[^'\\]|''|\\.)*'/g, '?')
}

function pick(error: DatabaseError, keys: readonly (keyof DatabaseError)[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => typeof error[key] === 'string').map((key) => [key, error[key]]))
}
