import { stat } from 'node:fs/promises'

/**
 * Resolves once a file's size and time have not changed for `stableMs` (a program may still be
 * writing a file it has just named), or after `maxMs` whatever it is. Bounded: a file that never
 * settles is taken as it is then, and judged by its content.
 */
export async function whenStable(path: string, stableMs: number, maxMs = 60_000): Promise<void> {
  const started = Date.now()
  let last = ''
  let since = Date.now()
  while (Date.now() - started < maxMs) {
    const info = await stat(path).catch(() => undefined)
    const now = info ? `${info.size}:${info.mtimeMs}` : 'missing'
    if (now !== last) {
      last = now
      since = Date.now()
    } else if (info && Date.now() - since >= stableMs) return
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, stableMs)))
  }
}
