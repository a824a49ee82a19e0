import { z } from 'zod'

import { EpochMillis, Id, PlainText } from './common.js'
import { GalleryEventSummary, SetSummary } from './event.js'
import {
  EXAMPLE_GALLERY_EVENT,
  EXAMPLE_GALLERY_SESSION,
  EXAMPLE_GUEST,
  EXAMPLE_IDS,
  EXAMPLE_PHOTO,
  EXAMPLE_PREVIEW,
  EXAMPLE_SET,
} from './examples.js'
import { LinkPreview, Photo } from './photo.js'

const emailSchema = z.email()
const isEmail = (value: string) => emailSchema.safeParse(value).success

export const Guest = z
  .strictObject({
    name: PlainText.trim().min(1, 'Name is required').max(100).describe('One name; stored as the first word plus the rest'),
    email: PlainText.trim()
      .max(254)
      // Kiosk forms send blank fields as '': blank means "not given", anything else must be an address.
      .refine((value) => value === '' || isEmail(value), { message: 'Invalid email address' })
      .optional()
      .describe('Optional; the guest needs an email or a phone. Blank counts as not given'),
    phone: PlainText.trim()
      .max(40)
      .optional()
      .describe(
        "Optional; normalised to E.164, read as from the event's country (US by default) when typed without one. Blank counts as not given",
      ),
    marketingOptIn: z.boolean().optional().describe('Consent to messages beyond the gallery link; recorded, never assumed (default false)'),
    hideFromEventPage: z
      .boolean()
      .optional()
      .describe(
        "Keep this guest's session off the public event page (default: the event's listGuestsByDefault); one guest asking hides the session",
      ),
  })
  .meta({ examples: [EXAMPLE_GUEST, { name: 'Grace Hopper', email: '', phone: '+44 20 7946 0958' }] })

export const RegisterGuestsBody = z
  .strictObject({
    guests: z.array(Guest).min(1).max(12),
    privacyNoticeVersion: PlainText.trim()
      .min(1)
      .max(40)
      .optional()
      .describe(
        "The privacy-notice version the guests were shown (the kiosk context's `privacyNotice.version`), recorded with each; one the event never published is refused (`unknown_privacy_notice`). Absent: the event's current version",
      ),
  })
  .meta({ examples: [{ guests: [EXAMPLE_GUEST, { name: 'Grace Hopper', email: 'grace@example.org' }] }] })

export const CreatedSession = z
  .object({
    id: Id.describe('Also the gallery identifier: at least 128 random bits'),
    label: z.string().describe("Derived from the guests' names; the download filename base"),
    status: z.literal('active'),
  })
  .meta({ examples: [{ id: EXAMPLE_IDS.session, label: 'Ada & Grace', status: 'active' }] })

export const GallerySession = z.object({
  id: Id,
  label: z.string(),
  createdAt: EpochMillis,
  photos: z.array(Photo),
  preview: LinkPreview.optional().describe('Absent until it is made, a few seconds after completion'),
})

export const EventPage = GalleryEventSummary.extend({
  sets: z.array(
    SetSummary.extend({
      sessions: z.array(GallerySession),
      nextCursor: z
        .string()
        .optional()
        .describe('Present when the set holds more live sessions than listed: pass it as `cursor` for its next page'),
    }),
  ),
}).meta({ examples: [{ ...EXAMPLE_GALLERY_EVENT, sets: [{ ...EXAMPLE_SET, sessions: [EXAMPLE_GALLERY_SESSION] }] }] })

export const Gallery = z
  .object({
    id: Id,
    label: z.string(),
    event: GalleryEventSummary,
    photos: z.array(Photo),
    preview: LinkPreview.optional().describe('Absent until it is made, a few seconds after completion'),
  })
  .meta({
    examples: [
      { id: EXAMPLE_IDS.session, label: 'Ada & Grace', event: EXAMPLE_GALLERY_EVENT, photos: [EXAMPLE_PHOTO], preview: EXAMPLE_PREVIEW },
    ],
  })
