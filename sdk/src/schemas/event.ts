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

/** The languages the guests' screens speak (the kiosk; more to come). */
export const Language = z.enum(['en', 'es', 'it']).describe('ISO 639-1: English, Spanish or Italian')

/** `#rrggbb`, as staff pick it. */
const HexColor = z.string().regex(/^#[0-9a-f]{6}$/i, 'A colour as #rrggbb')

const brandingFields = {
  businessName: PlainText.trim()
    .min(1)
    .max(80)
    .optional()
    .describe("The booth business's name, in the pages' header and footer and the email"),
  businessUrl: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .optional()
    .describe("The business's website, linked from the footer of the guest's pages and the email"),
  accentColor: HexColor.optional().describe('Buttons and links; the pages pick a text colour readable on it'),
  tagline: PlainText.trim().min(1).max(120).optional().describe('A line under the event\'s name: "Thanks for celebrating with us!"'),
}

/**
 * How an event's pages, email and kiosk are dressed: the booth business's (or its client's) name,
 * link, colour, line and logo. Every field optional: an event without branding looks as before.
 */
export const EventBranding = z
  .object({
    ...brandingFields,
    logo: z
      .object({
        url: z.url().describe('On this service, immutable (a new logo gets a new URL): a PNG at most 800×240'),
        width: z.int().min(1).max(800),
        height: z.int().min(1).max(240),
      })
      .optional(),
  })
  .meta({ examples: [{ businessName: 'Flashbulb Booths', businessUrl: 'https://flashbulb.example.com', accentColor: '#b4235a' }] })

/** Branding as staff set it: the logo as a `data:` URL of a PNG, JPEG or WebP (at most 48 KB), or null to remove it. */
export const NewEventBranding = z
  .strictObject({
    ...brandingFields,
    logo: z
      .string()
      .max(65_536)
      .regex(/^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/]+={0,2}$/, 'A logo as a data: URL of a PNG, JPEG or WebP image')
      .nullable()
      .optional()
      .describe('A PNG, JPEG or WebP as a data: URL (at most 48 KB of image); shrunk to fit 800×240 and stored as PNG. null removes it'),
  })
  .meta({ examples: [{ businessName: 'Flashbulb Booths', accentColor: '#b4235a' }] })

export const GalleryEventSummary = EventSummary.extend({
  startAt: EpochMillis,
  branding: EventBranding.optional().describe('Absent when the event has none'),
}).meta({ examples: [EXAMPLE_GALLERY_EVENT] })

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
  language: Language.optional().describe("The language the kiosk starts in; absent: the kiosk's own default (English)"),
  kioskIdleSeconds: z
    .int()
    .optional()
    .describe("After this long untouched, a kiosk clears its screen for the next group; absent: the kiosk's default (60 s)"),
  branding: EventBranding.optional().describe('Absent when the event has none'),
}).meta({ examples: [{ ...EXAMPLE_EVENT, phoneCountry: 'US', listGuestsByDefault: true }] })
