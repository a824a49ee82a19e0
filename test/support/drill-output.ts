/** Whether a log line is one JSON value (the service's log stream is JSON lines only). */
export function isJson(line: string): boolean {
  try {
    JSON.parse(line)
    return true
  } catch {
    return false
  }
}

/** The lines of captured log chunks that are not JSON. */
export const notJson = (chunks: string[]): string[] =>
  chunks.flatMap((chunk) => chunk.split('\n').filter(Boolean)).filter((line) => !isJson(line))

/** An error with its cause's code (fetch's `fetch failed` says nothing by itself). */
export function explain(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return `${String(error)}${cause ? ` (${cause.code ?? cause.message})` : ''}`
}
