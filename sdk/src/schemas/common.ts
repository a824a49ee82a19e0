import { z } from 'zod'

/** A URL slug as used in kiosk and gallery paths. */
export const Slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Invalid slug')

/** Opaque identifiers; bounded so that a hostile path cannot reach the database unchecked. */
export const Id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id')

/**
 * A slug or id in a path. Any text: one that names nothing is simply not found (a 404,
 * "no such set", "no such gallery"), however it is spelled. Bounded, and without control
 * characters, which no key holds (PostgreSQL text cannot even store NUL): those are bad input.
 */
export const PathKey = z
  .string()
  .min(1)
  .max(200)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'Invalid path segment')

/**
 * Text stored as given: without control characters (PostgreSQL cannot store NUL, and none belongs in
 * a name, an address or a label) and without unpaired surrogates, which UTF-8 cannot carry: stored,
 * they would become U+FFFD, and the stored text would differ from the text answered.
 */
export const PlainText = z
  .string()
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'Control characters are not allowed')
  .refine(isWellFormed, 'Unpaired surrogates are not allowed')

/** Free text (a message): line breaks and tabs allowed, the other control characters and unpaired surrogates not. */
export const MultilineText = z
  .string()
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'Control characters other than line breaks and tabs are not allowed')
  .refine(isWellFormed, 'Unpaired surrogates are not allowed')

function isWellFormed(text: string): boolean {
  return !/\p{Surrogate}/u.test(text)
}

/** Milliseconds since the Unix epoch. */
export const EpochMillis = z.int().nonnegative()

/** The last millisecond of the year 9999: as far as PostgreSQL's timestamps (and ISO 8601) go. */
export const LAST_MILLISECOND = 253_402_300_799_999
