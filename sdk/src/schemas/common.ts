import { z } from 'zod'

/** A URL slug as used in kiosk and gallery paths. */
export const Slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Invalid slug')

/** Opaque identifiers; bounded so that a hostile path cannot reach the database unchecked. */
export const Id = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'Invalid id')

/** Milliseconds since the Unix epoch. */
export const EpochMillis = z.int().nonnegative()

/** `{ error }`: the body of every domain error. */
export const ErrorBody = z.object({ error: z.string() })
