/**
 * Placeholders in generated strings, resolved just before sending, so that counterexamples stay
 * short and readable and survive a restart of the service (new rows, new ids):
 *
 * - `$[liveSession]`: a real value of the service (see `Refs`); `$[host]`: its host:port.
 * - `$[liveSession|upper]`: the same in capitals.
 * - `$[x61*65537]`: code unit or point 0x61 (`a`) repeated 65,537 times (strings up to 1 MB and more);
 *   `$[x61*65537|pct]`: the same, percent-encoded (for paths).
 * - `$[bytes:ed a0 80]`: raw bytes in a body (invalid UTF-8); in a request line or header, one
 *   character per byte.
 */
import { REF_NAMES, type RefName, type Refs } from './protocol.js'

export type Context = { refs: Refs; host: string }

const PLACEHOLDER = /\$\[(?:([A-Za-z]+)(\|upper)?|x([0-9a-f]{1,6})\*(\d+)(\|pct)?|bytes:([0-9a-f ]*))\]/g

export const ref = (name: RefName | 'host', upper = false) => `$[${name}${upper ? '|upper' : ''}]`
export const repeat = (unit: string, times: number, pct = false) => `$[x${unit}*${times}${pct ? '|pct' : ''}]`
export const bytes = (hex: string) => `$[bytes:${hex}]`

const isRef = (name: string): name is RefName => (REF_NAMES as readonly string[]).includes(name)

function unitOf(hex: string): string {
  const code = parseInt(hex, 16)
  // Lone surrogates stay lone: fromCodePoint would refuse nothing, but be explicit.
  return code <= 0xffff ? String.fromCharCode(code) : String.fromCodePoint(Math.min(code, 0x10ffff))
}

/** Percent-encodes everything but unreserved characters, lone surrogates as their WTF-8 bytes. */
export function percentEncode(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (/[A-Za-z0-9\-._~]/.test(text[i]!)) {
      out += text[i]
      continue
    }
    let code = unit
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00)
        i++
      }
    }
    for (const byte of wtf8(code)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

function wtf8(code: number): number[] {
  if (code < 0x80) return [code]
  if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 63)]
  if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
  return [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
}

/** Resolves placeholders in a string (request line, header, JSON string); raw bytes become one character each. */
export function resolveText(text: string, context: Context): string {
  if (!text.includes('$[')) return text
  return text.replace(
    PLACEHOLDER,
    (whole, name?: string, upper?: string, hex?: string, times?: string, pct?: string, hexBytes?: string) => {
      if (name !== undefined) {
        const value = name === 'host' ? context.host : isRef(name) ? context.refs[name] : undefined
        if (value === undefined) return whole
        return upper ? value.toUpperCase() : value
      }
      if (hex !== undefined) {
        const repeated = unitOf(hex).repeat(Number(times))
        return pct ? percentEncode(repeated) : repeated
      }
      return Buffer.from((hexBytes ?? '').replace(/ /g, ''), 'hex').toString('latin1')
    },
  )
}

/** A body's bytes: text as UTF-8 (lone surrogates become U+FFFD), `$[bytes:…]` exactly. */
export function resolveBytes(text: string, context: Context): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (const match of text.matchAll(/\$\[bytes:([0-9a-f ]*)\]/g)) {
    parts.push(Buffer.from(resolveText(text.slice(at, match.index), context), 'utf8'))
    parts.push(Buffer.from(match[1]!.replace(/ /g, ''), 'hex'))
    at = match.index + match[0].length
  }
  parts.push(Buffer.from(resolveText(text.slice(at), context), 'utf8'))
  return Buffer.concat(parts)
}

/** Resolves every string of a JSON value, keys included; `__proto__` stays an own key. */
export function resolveJson(value: unknown, context: Context): unknown {
  if (typeof value === 'string') return resolveText(value, context)
  if (Array.isArray(value)) return value.map((item) => resolveJson(item, context))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, resolveText(key, context), {
        value: resolveJson(item, context),
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return out
  }
  return value
}
