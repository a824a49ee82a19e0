import { z } from 'zod'

import { EpochMillis, Id, PlainText } from './common.js'
import { GalleryEventSummary, SetSummary } from './event.js'
import { Photo } from './photo.js'

const emailSchema = z.email()
const isEmail = (value: string) => emailSchema.safeParse(value).success

export const Guest = z.strictObject({
  name: PlainText
    .trim()
    .min(1, 'Name is required')
    .max(100)
    .describe('One name; stored as the first word plus the rest'),
  email: PlainText
    .trim()
    .max(254)
    // Kiosk forms send blank fields as '': blank means "not given", anything else must be an address.
    .refine((value) => value === '' || isEmail(value), { message: 'Invalid email address' })
    .optional()
    .describe('Optional; the guest needs an email or a phone. Blank counts as not given'),
  phone: PlainText
    .trim()
    .max(40)
    .optional()
    .describe('Optional; normalised to E.164, US by default. Blank counts as not given'),
})

export const RegisterGuestsBody = z.strictObject({
  guests: z.array(Guest).min(1).max(12),
})

export const CreatedSession = z.object({
  id: Id.describe('Also the gallery identifier: at least 128 random bits'),
  label: z.string().describe("Derived from the guests' names; the download filename base"),
  status: z.literal('active'),
})

export const GallerySession = z.object({
  id: Id,
  label: z.string(),
  createdAt: EpochMillis,
  photos: z.array(Photo),
})

export const EventPage = GalleryEventSummary.extend({
  sets: z.array(SetSummary.extend({ sessions: z.array(GallerySession) })),
})

export const Gallery = z.object({
  id: Id,
  label: z.string(),
  event: GalleryEventSummary,
  photos: z.array(Photo),
})
