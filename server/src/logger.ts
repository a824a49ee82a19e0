/** One JSON line per record on stdout/stderr: readable by people and by log shippers. */
export type Logger = {
  info: (message: string, fields?: Record<string, unknown>) => void
  error: (message: string, error?: unknown) => void
}

export function createLogger(options: { silent?: boolean } = {}): Logger {
  if (options.silent) return { info: () => {}, error: () => {} }
  const write = (stream: NodeJS.WriteStream, record: Record<string, unknown>) =>
    stream.write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`)
  return {
    info: (message, fields) => write(process.stdout, { level: 'info', message, ...fields }),
    error: (message, error) =>
      write(process.stderr, {
        level: 'error',
        message,
        error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack, cause: String(error.cause ?? '') } : error,
      }),
  }
}
