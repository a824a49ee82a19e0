import { z } from 'zod'

import { EpochMillis, Id, MultilineText, PlainText, Slug } from './common.js'
import { EXAMPLE_EVENT, EXAMPLE_GALLERY_EVENT, EXAMPLE_SET } from './examples.js'

export const EventSummary = z
  .object({
    id: Id,
    slug: Slug,
    name: z.string(),
  })
  .meta({ examples: [EXAMPLE_EVENT] })

export const GalleryEventSummary = EventSummary.extend({ startAt: EpochMillis }).meta({ examples: [EXAMPLE_GALLERY_EVENT] })

export const SetSummary = z
  .object({
    id: Id,
    slug: Slug,
    name: z.string(),
  })
  .meta({ examples: [EXAMPLE_SET] })

/** An ISO 3166-1 alpha-2 country code, upper case: `US`, `IT`, `GB`. */
export const CountryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'An ISO 3166 country code of two capital letters, such as US or IT')
  .describe('ISO 3166-1 alpha-2')

const privacyNotice = (url: z.ZodURL) =>
  z
    .strictObject({
      version: PlainText.trim().min(1).max(40).describe('Recorded with each guest who registers under it'),
      url: url.max(2000).optional().describe('Where the kiosk links to it; also linked from the gallery email'),
      text: MultilineText.max(4000).optional().describe('The notice itself, for a kiosk to show'),
    })
    .refine((notice) => notice.url !== undefined || notice.text !== undefined, 'A privacy notice needs a url or a text')
    .meta({ examples: [{ version: '2026-06', url: 'https://booths.example.com/privacy' }] })

/** The privacy notice guests register under: a version, and a link to it or its text (or both). */
export const PrivacyNotice = privacyNotice(z.url())

/**
 * The notice as staff set it: its link is a web page (http or https), as the kiosk and the email
 * open it; a `javascript:` or `data:` URL is refused. (Answers keep the plain URL schema, so that a
 * link stored before this rule still reads.)
 */
export const NewPrivacyNotice = privacyNotice(z.url({ protocol: /^https?$/ }))

/** The event as a kiosk needs it to register guests (optional additions to the event summary). */
export const KioskEvent = EventSummary.extend({
  phoneCountry: CountryCode.describe('Phones typed without a country code are read as from this country (US unless the event sets one)'),
  listGuestsByDefault: z
    .boolean()
    .describe("Whether a guest is listed on the event page unless they ask not to be (the guest's `hideFromEventPage`)"),
  privacyNotice: PrivacyNotice.optional().describe('The notice to show before registration; absent when the event has none'),
}).meta({ examples: [{ ...EXAMPLE_EVENT, phoneCountry: 'US', listGuestsByDefault: true }] })
