export type SplitName = { firstName: string; lastName: string }

/** "  Ada   King Lovelace " → { firstName: "Ada", lastName: "King Lovelace" }: the first word plus the rest. */
export function splitName(name: string): SplitName {
  const words = name.trim().split(/\s+/u).filter(Boolean)
  return { firstName: words[0] ?? '', lastName: words.slice(1).join(' ') }
}

/** Characters that are unsafe in a file name on some system, and control characters. */
const UNSAFE_IN_FILENAMES = /[\\/:*?"<>|\p{Cc}\p{Cf}]/gu
const MAX_LABEL_LENGTH = 60
export const FALLBACK_LABEL = 'Photos'

/**
 * The session label, also the base of download file names:
 * one guest → "Ada Lovelace"; two → "Ada & Grace"; three → "Ada, Grace & Alan";
 * more → "Ada, Grace, Alan & 2 more". Then made safe as a file name base.
 */
export function deriveLabel(names: readonly SplitName[]): string {
  const firsts = names.map((name) => name.firstName)
  let label: string
  if (names.length === 1) label = [names[0]!.firstName, names[0]!.lastName].filter(Boolean).join(' ')
  else if (names.length <= 3) label = `${firsts.slice(0, -1).join(', ')} & ${firsts.at(-1)}`
  else label = `${firsts.slice(0, 3).join(', ')} & ${names.length - 3} more`
  return toFilenameBase(label)
}

/** Strips what a file system or a Content-Disposition header would choke on, and bounds the length. */
export function toFilenameBase(text: string): string {
  const cleaned = text.replace(UNSAFE_IN_FILENAMES, ' ').replace(/\s+/gu, ' ').trim()
  // Cut by code points so a surrogate pair is never split.
  const bounded = Array.from(cleaned).slice(0, MAX_LABEL_LENGTH).join('').trim()
  // Leading dots hide files; trailing dots and spaces are dropped by Windows.
  const trimmed = bounded.replace(/^[.\s]+|[.\s]+$/gu, '')
  return trimmed || FALLBACK_LABEL
}

/** A guest's full name as registered: the first word, then the rest. */
export const fullName = (guest: { firstName: string; lastName: string }) => `${guest.firstName} ${guest.lastName}`.trim()
