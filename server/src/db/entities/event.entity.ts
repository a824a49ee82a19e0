import { EntitySchema, type OptionalProps } from '@mikro-orm/core'

/** Lowercase words joined by single hyphens: what an event's or a set's slug may be. */
export const SLUG_CHECK = "slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'"

/** The languages an event's kiosk may speak (the contract's `Language`). */
export const LANGUAGES = ['en', 'es', 'it'] as const
export type Language = (typeof LANGUAGES)[number]

export class Event {
  /** Defaulted by the database: creating an event need not name them. */
  declare [OptionalProps]?: 'listGuestsByDefault' | 'purgedSessions' | 'purgedGuests' | 'purgedPhotos'
  id!: string
  slug!: string
  name!: string
  startAt!: Date
  /** A private event hides its index page, not the links to its sessions. */
  isPrivate = false
  /** ISO 3166 country of the phones its guests type without a country code; none: US. */
  phoneCountry?: string | null
  /** The privacy notice guests register under: its version, and a link to it or its text. */
  privacyNoticeVersion?: string | null
  privacyNoticeUrl?: string | null
  privacyNoticeText?: string | null
  /** Whether a guest is listed on the event page unless they ask not to be. */
  listGuestsByDefault = true
  /** Days after its start its guests' data is kept; none: the instance's RETENTION_DAYS. */
  retentionDays?: number | null
  /** The kiosk's language (`en`, `es`, `it`); none: English. */
  language?: Language | null
  /** Seconds a kiosk waits untouched before it clears its screen; none: the kiosk's default. */
  kioskIdleSeconds?: number | null
  /** The pages', email's and kiosk's dress, but for the logo (`EventBranding` without it). */
  branding?: BrandingText | null
  /** The logo as served: a PNG made from the one staff gave, named by its hash. */
  logoPng?: Buffer | null
  logoHash?: string | null
  logoWidth?: number | null
  logoHeight?: number | null
  /** What the purge removed, counted: the event's figures outlive its guests' data. */
  purgedSessions = 0
  purgedGuests = 0
  purgedPhotos = 0
  createdAt = new Date()
  /** When staff last changed it or one of its sets (`touchEvent`): part of the galleries' ETags. */
  updatedAt = new Date()
}

/** The words and colour of an event's branding, as stored. */
export type BrandingText = { businessName?: string; businessUrl?: string; accentColor?: string; tagline?: string }

export const EventSchema = new EntitySchema<Event>({
  class: Event,
  tableName: 'event',
  // Checks are written as PostgreSQL prints them back (no `between`): MikroORM's diff compares their text.
  checks: [
    { name: 'event_slug_check', expression: SLUG_CHECK },
    { name: 'event_name_check', expression: 'length(name) >= 1 and length(name) <= 200' },
    { name: 'event_kiosk_idle_seconds_check', expression: 'kiosk_idle_seconds >= 15 and kiosk_idle_seconds <= 600' },
  ],
  properties: {
    id: { type: 'text', primary: true },
    slug: { type: 'text', unique: 'event_slug_key' },
    name: { type: 'text' },
    startAt: { type: 'Date' },
    isPrivate: { type: 'boolean', default: false },
    phoneCountry: { type: 'text', nullable: true },
    privacyNoticeVersion: { type: 'text', nullable: true },
    privacyNoticeUrl: { type: 'text', nullable: true },
    privacyNoticeText: { type: 'text', nullable: true },
    listGuestsByDefault: { type: 'boolean', default: true },
    retentionDays: { type: 'integer', nullable: true },
    // An enum property: MikroORM checks it against the list (event_language_check).
    language: { enum: true, items: () => LANGUAGES, nullable: true },
    kioskIdleSeconds: { type: 'integer', nullable: true },
    branding: { type: 'json', nullable: true },
    // Lazy: read only by the logo's own route, never with the event.
    logoPng: { type: 'blob', nullable: true, lazy: true },
    logoHash: { type: 'text', nullable: true },
    logoWidth: { type: 'integer', nullable: true },
    logoHeight: { type: 'integer', nullable: true },
    purgedSessions: { type: 'integer', default: 0 },
    purgedGuests: { type: 'integer', default: 0 },
    purgedPhotos: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    updatedAt: { type: 'Date', defaultRaw: 'now()', onUpdate: () => new Date() },
  },
})
