import { z } from 'zod'

import { Id, MultilineText, PlainText } from './common.js'

export const SHARE_CHANNELS = ['facebook', 'instagram', 'tiktok', 'copy', 'native'] as const

/** A view of a session's gallery or of an event's page: exactly one of the two ids. */
export const ViewBeacon = z.union([
  z.strictObject({ kind: z.literal('view'), sessionId: Id }),
  z.strictObject({ kind: z.literal('view'), eventId: Id }),
])

export const ShareBeacon = z.strictObject({ kind: z.literal('share'), sessionId: Id, channel: z.enum(SHARE_CHANNELS) })

export const TrackBeacon = z.union([ViewBeacon, ShareBeacon])

/** Contact form bounds (spec, section 8). */
export const CONTACT_LIMITS = { fields: 24, valueLength: 2_000, bodyBytes: 16 * 1024 } as const

export const ContactSubmission = z.strictObject({
  fields: z
    .record(PlainText.min(1).max(200), MultilineText.max(CONTACT_LIMITS.valueLength))
    .refine((fields) => Object.keys(fields).length >= 1 && Object.keys(fields).length <= CONTACT_LIMITS.fields)
    .describe('Field labels of the published contact page mapped to their values'),
})
