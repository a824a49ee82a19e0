import { z } from 'zod'

import { MultilineText, PlainText } from './common.js'

/** Contact form bounds: what the published form takes, and no more. */
export const CONTACT_LIMITS = { fields: 24, valueLength: 2_000, bodyBytes: 16 * 1024 } as const

export const ContactSubmission = z
  .strictObject({
    fields: z
      .record(PlainText.min(1).max(200), MultilineText.max(CONTACT_LIMITS.valueLength))
      .refine((fields) => Object.keys(fields).length >= 1 && Object.keys(fields).length <= CONTACT_LIMITS.fields)
      .describe('Field labels of the published contact page mapped to their values: 1 to 24 fields, each value at most 2,000 characters'),
  })
  .meta({
    examples: [
      { fields: { Name: 'Ada Lovelace', Email: 'ada@example.org', 'Event date': '2026-07-01', Message: 'A booth for 120 guests?' } },
    ],
  })
