import { EntitySchema, type OptionalProps } from '@mikro-orm/core'

import { Customer } from './customer.entity.js'
import { Session } from './session.entity.js'

/** A guest as registered for one session: the contact the gallery link goes to. */
export class SessionGuest {
  /** Defaulted by the database: guests registered without a choice keep the defaults. */
  declare [OptionalProps]?: 'marketingOptIn' | 'listed'
  id!: string
  session!: Session
  position!: number
  firstName!: string
  lastName!: string
  email?: string
  phone?: string
  customer!: Customer
  /** Consent, as given at the kiosk: marketing beyond the gallery link (never assumed). */
  marketingOptIn = false
  /** Whether this guest's session may be listed on the event page on their account: their choice, or the default they saw. */
  listed = true
  /** What they chose when asked (true: list me, false: do not); null when they were not asked. */
  listingChoice?: boolean | null
  /** The event's privacy-notice version at registration, and when (absent for guests registered before). */
  privacyNoticeVersion?: string | null
  registeredAt?: Date | null
}

export const SessionGuestSchema = new EntitySchema<SessionGuest>({
  class: SessionGuest,
  tableName: 'session_guest',
  uniques: [{ name: 'session_guest_session_id_position_unique', properties: ['session', 'position'] }],
  indexes: [
    { name: 'session_guest_customer_id_index', properties: ['customer'] },
    // A person is looked up by any address or number they gave (modules/people).
    { name: 'session_guest_email_index', expression: 'create index session_guest_email_index on session_guest (lower(email))' },
    { name: 'session_guest_phone_index', expression: 'create index session_guest_phone_index on session_guest (phone)' },
  ],
  checks: [
    { name: 'session_guest_contact_check', expression: 'email is not null or phone is not null' },
    { name: 'session_guest_position_check', expression: 'position >= 1 and position <= 12' },
  ],
  properties: {
    id: { type: 'text', primary: true },
    session: {
      kind: 'm:1',
      entity: () => Session,
      foreignKeyName: 'session_guest_session_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    position: { type: 'integer' },
    firstName: { type: 'text' },
    lastName: { type: 'text' },
    email: { type: 'text', nullable: true },
    phone: { type: 'text', nullable: true },
    marketingOptIn: { type: 'boolean', default: false },
    listed: { type: 'boolean', default: true },
    listingChoice: { type: 'boolean', nullable: true },
    privacyNoticeVersion: { type: 'text', nullable: true },
    registeredAt: { type: 'Date', nullable: true },
    // No cascade: a customer with sessions cannot be deleted.
    customer: {
      kind: 'm:1',
      entity: () => Customer,
      foreignKeyName: 'session_guest_customer_id_fkey',
      deleteRule: 'no action',
      updateRule: 'no action',
    },
  },
})
