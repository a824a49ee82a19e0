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
 * An error as logged. A database error's message holds the statement with its values written in
 * (MikroORM inlines them) and a `detail` that repeats the conflicting values: guests' names, emails
 * and phones. It is logged as its SQLSTATE, where it happened, and the statement with every literal
 * replaced by `?`.
 */
export function describeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error
  if (isDatabaseError(error)) {
    const frames = (error.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at '))
    return {
      name: error.name,
      code: error.code,
      ...pick(error, ['constraint', 'table', 'column', 'routine']),
      message: withoutValues(error.message),
      stack: frames.join('\n'),
    }
  }
  return {
    name: error.name,
    message: withoutSessionIds(error.message),
    stack: error.stack && withoutSessionIds(error.stack),
    ...(error.cause !== undefined && depth < 3 ? { cause: describeError(error.cause, depth + 1) } : {}),
  }
}

/**
 * Storage errors name the object (a file's path, a key): `sessions/<session id>/…`. A session id is a
 * gallery's secret link, so it is left out; what failed and where still shows.
 */
export const withoutSessionIds = (text: string) => text.replace(/sessions\/[A-Za-z0-9_-]{1,64}\//g, 'sessions/…/')

/** The statement and PostgreSQL's own words, without the values: literals become `?`, the detail goes. */
export function withoutValues(message: string): string {
  return message
    .split('\n - detail:')[0]!
    .replace(/E?'(?:[^'\\]|''|\\.)*'/g, '?')
}

function pick(error: DatabaseError, keys: readonly (keyof DatabaseError)[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => typeof error[key] === 'string').map((key) => [key, error[key]]))
}
