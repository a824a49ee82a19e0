import type { BrandingRow } from './branding.js'

/** The SQL select list of an event's branding (`BrandingRow`), from the event aliased `e`. */
export const BRANDING_COLUMNS = 'e.branding, e.logo_hash, e.logo_width, e.logo_height'

/**
 * A kiosk's context from its two slugs, as SQL: read at every kiosk's start and reload, one indexed
 * statement, no entity to hydrate. Exported so that the full-stack benchmark's raw route runs it.
 */

export const KIOSK_CONTEXT = `select s.id, s.slug, s.name, e.id as event_id, e.slug as event_slug, e.name as event_name,
         e.phone_country, e.list_guests_by_default, e.privacy_notice_version, e.privacy_notice_url, e.privacy_notice_text,
         e.language, e.kiosk_idle_seconds, ${BRANDING_COLUMNS}
    from event_set s
    join event e on e.id = s.event_id
   where s.slug = ? and e.slug = ?`

export type KioskContextRow = {
  id: string
  slug: string
  name: string
  event_id: string
  event_slug: string
  event_name: string
  language: string | null
  kiosk_idle_seconds: number | null
} & RegistrationRulesRow &
  BrandingRow

/** What registering guests at a set needs of its event: its phones' country, its listing default, its notice. */
export const REGISTRATION_RULES = `select e.phone_country, e.list_guests_by_default, e.is_private, e.privacy_notice_version, e.privacy_notice_url, e.privacy_notice_text
    from event_set s
    join event e on e.id = s.event_id
   where s.id = ?`

export type RegistrationRulesRow = {
  phone_country: string | null
  /** Absent from the kiosk context's row, which reads no more than it needs. */
  is_private?: boolean
  list_guests_by_default: boolean
  privacy_notice_version: string | null
  privacy_notice_url: string | null
  privacy_notice_text: string | null
}

/** An event's logo, as its route serves it: only when the hash asked for is the current one. */
export const EVENT_LOGO = 'select logo_png from event where id = ? and logo_hash = ?'

/** Marks an event changed (its galleries' ETags move on) and locks its row; returns its id when it exists. */
export const TOUCH_EVENT = 'update event set updated_at = clock_timestamp() where id = ? returning id'
