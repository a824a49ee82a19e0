import { EntitySchema } from '@mikro-orm/core'

/** A person across events, linked by email (case-insensitive) first, then by phone. */
export class Customer {
  id!: string
  email?: string
  phone?: string
  firstName!: string
  lastName!: string
  createdAt = new Date()
}

export const CustomerSchema = new EntitySchema<Customer>({
  class: Customer,
  tableName: 'customer',
  // The arbiters of race-safe linking: one customer per address, whatever its case, and per phone.
  // Unique indexes rather than constraints, as the migration made them (one is on an expression).
  indexes: [
    { name: 'customer_email_unique', expression: 'create unique index customer_email_unique on customer (lower(email))' },
    { name: 'customer_phone_unique', expression: 'create unique index customer_phone_unique on customer (phone)' },
  ],
  checks: [
    { name: 'customer_contact_check', expression: 'email is not null or phone is not null' },
    { name: 'customer_phone_check', expression: "phone ~ '^\\+[1-9][0-9]{1,14}$'" },
  ],
  properties: {
    id: { type: 'text', primary: true },
    email: { type: 'text', nullable: true },
    /** E.164. */
    phone: { type: 'text', nullable: true },
    firstName: { type: 'text' },
    lastName: { type: 'text' },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
