/** One JSON line per record on stdout/stderr: readable by people and by log shippers. */
export type Logger = {
  info: (message: string, fields?: Record<string, unknown>) => void
  error: (message: string, error?: unknown) => void
}

export function createLogger(options: { silent?: boolean; write?: (stream: 'stdout' | 'stderr', line: string) => void } = {}): Logger {
  if (options.silent) return { info: () => {}, error: () => {} }
  const out = options.write ?? ((stream, line) => void process[stream].write(line))
  const write = (stream: 'stdout' | 'stderr', record: Record<string, unknown>) =>
    out(stream, `${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`)
  return {
    info: (message, fields) => write('stdout', { level: 'info', message, ...fields }),
    error: (message, error) => write('stderr', { level: 'error', message, error: describeError(error) }),
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
    message: error.message,
    stack: error.stack,
    ...(error.cause !== undefined && depth < 3 ? { cause: describeError(error.cause, depth + 1) } : {}),
  }
}

/** The statement and PostgreSQL's own words, without the values: literals become `?`, the detail goes. */
export function withoutValues(message: string): string {
  return message
    .split('\n - detail:')[0]!
    .replace(/E?'(?:[^'\\]|''|\\.)*'/g, '?')
}

function pick(error: DatabaseError, keys: readonly (keyof DatabaseError)[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => typeof error[key] === 'string').map((key) => [key, error[key]]))
}
