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
  properties: {
    id: { type: 'string', primary: true },
    email: { type: 'string', nullable: true },
    phone: { type: 'string', nullable: true },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    createdAt: { type: 'Date' },
  },
})
