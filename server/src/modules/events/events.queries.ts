import { z } from 'zod'

import { query } from '../../db/query.js'

/** The SQL select list of an event's branding (`BRANDING_ROW`), from the event aliased `e`. */
export const BRANDING_COLUMNS = 'e.branding, e.logo_hash, e.logo_width, e.logo_height'

/** The columns a row read with SQL holds branding in (`BRANDING_COLUMNS`): a shape other rows spread into theirs. */
export const BRANDING_ROW = {
  branding: z
    .object({
      businessName: z.string().optional(),
      businessUrl: z.string().optional(),
      accentColor: z.string().optional(),
      tagline: z.string().optional(),
    })
    .nullable(),
  logo_hash: z.string().nullable(),
  logo_width: z.number().nullable(),
  logo_height: z.number().nullable(),
}
export type BrandingRow = z.infer<z.ZodObject<typeof BRANDING_ROW>>

/**
 * A kiosk's context from its two slugs, as SQL: read at every kiosk's start and reload, one indexed
 * statement, no entity to hydrate. Exported so that the full-stack benchmark's raw route runs it.
 */

export const KIOSK_CONTEXT = query(
  'events.kioskContext',
  `select s.id, s.slug, s.name, e.id as event_id, e.slug as event_slug, e.name as event_name,
         e.phone_country, e.list_guests_by_default, e.privacy_notice_version, e.privacy_notice_url, e.privacy_notice_text,
         e.language, e.kiosk_idle_seconds, ${BRANDING_COLUMNS}
    from event_set s
    join event e on e.id = s.event_id
   where s.slug = ? and e.slug = ?`,
  z.strictObject({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    event_id: z.string(),
    event_slug: z.string(),
    event_name: z.string(),
    phone_country: z.string().nullable(),
    list_guests_by_default: z.boolean(),
    privacy_notice_version: z.string().nullable(),
    privacy_notice_url: z.string().nullable(),
    privacy_notice_text: z.string().nullable(),
    language: z.enum(['en', 'es', 'it']).nullable(),
    kiosk_idle_seconds: z.number().nullable(),
    ...BRANDING_ROW,
  }),
)
export type KioskContextRow = z.infer<typeof KIOSK_CONTEXT.row>

/** What registering guests at a set needs of its event: its phones' country, its listing default, its notice. */
export const REGISTRATION_RULES = query(
  'events.registrationRules',
  `select e.phone_country, e.list_guests_by_default, e.is_private, e.privacy_notice_version, e.privacy_notice_url, e.privacy_notice_text
    from event_set s
    join event e on e.id = s.event_id
   where s.id = ?`,
  z.strictObject({
    phone_country: z.string().nullable(),
    list_guests_by_default: z.boolean(),
    is_private: z.boolean(),
    privacy_notice_version: z.string().nullable(),
    privacy_notice_url: z.string().nullable(),
    privacy_notice_text: z.string().nullable(),
  }),
)
export type RegistrationRulesRow = z.infer<typeof REGISTRATION_RULES.row>

/** An event's logo, as its route serves it: only when the hash asked for is the current one. */
export const EVENT_LOGO = query(
  'events.logo',
  'select logo_png from event where id = ? and logo_hash = ?',
  z.strictObject({ logo_png: z.instanceof(Buffer).nullable() }),
)

/** Marks an event changed (its galleries' ETags move on) and locks its row; returns its id when it exists. */
export const TOUCH_EVENT = query(
  'events.touch',
  'update event set updated_at = clock_timestamp() where id = ? returning id',
  z.strictObject({ id: z.string() }),
)
