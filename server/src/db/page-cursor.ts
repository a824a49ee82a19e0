import type { z } from 'zod'

/**
 * A page's cursor, opaque to clients: base64url of a JSON tuple naming where the page ended (a
 * time in microseconds and an id, say), for keyset paging. Decoded against the tuple's schema:
 * anything else, or a string that is not one, is `undefined`.
 */
export const encodePageCursor = (key: readonly unknown[]): string => Buffer.from(JSON.stringify(key)).toString('base64url')

export function decodePageCursor<T>(cursor: string, schema: z.ZodType<T>): T | undefined {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  const parsed = schema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}
