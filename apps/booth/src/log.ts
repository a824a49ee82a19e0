/**
 * The operator's view: one line per event, as text (`2026-07-01T18:02:11Z session 3: completed`) or,
 * with `--json`, as one JSON object a line. Guests' data never reaches a line: sessions are named by
 * the connector's own number, never by their id, label or link; a file's path has any id-like part
 * (22 characters of a session id, as a QR-printed file name may hold) masked.
 */
export type Level = 'info' | 'warn' | 'error'
export type Fields = Record<string, string | number | boolean | undefined>

export type Logger = {
  info(event: string, text: string, fields?: Fields): void
  warn(event: string, text: string, fields?: Fields): void
  error(event: string, text: string, fields?: Fields): void
  /** A session id the connector learnt (a claim, a file's name): masked wherever it appears, inside a word too. */
  conceal(id: string): void
}

/** A session id (22 URL-safe characters) standing alone in a logged text, even one the connector never learnt. */
const SESSION_ID = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g

export function createLogger(options: { json: boolean; write?: (line: string) => void }): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`))
  const known = new Set<string>()
  const masked = (text: string) => [...known].reduce((each, id) => each.replaceAll(id, '…'), text).replace(SESSION_ID, '…')
  const line =
    (level: Level) =>
    (event: string, text: string, fields: Fields = {}) => {
      const time = new Date().toISOString()
      const safe = Object.fromEntries(
        Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? masked(value) : value]),
      )
      if (options.json) write(JSON.stringify({ time, level, event, message: masked(text), ...safe }))
      else write(`${time.slice(0, 19)}Z ${level === 'info' ? '' : `${level.toUpperCase()} `}${masked(text)}`)
    }
  return { info: line('info'), warn: line('warn'), error: line('error'), conceal: (id) => void known.add(id) }
}

/** Bytes for a person: 12.3 MB. */
export const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`
