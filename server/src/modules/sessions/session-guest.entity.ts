import { EntitySchema } from '@mikro-orm/core'

import { Customer } from '../customers/customer.entity.js'
import { Session } from './session.entity.js'

/** A guest as registered for one session: the contact the gallery link goes to. */
export class SessionGuest {
  id!: string
  session!: Session
  position!: number
  firstName!: string
  lastName!: string
  email?: string
  phone?: string
  customer!: Customer
}

export const SessionGuestSchema = new EntitySchema<SessionGuest>({
  class: SessionGuest,
  tableName: 'session_guest',
  uniques: [{ properties: ['session', 'position'] }],
  properties: {
    id: { type: 'string', primary: true },
    session: { kind: 'm:1', entity: () => Session, deleteRule: 'cascade' },
    position: { type: 'integer' },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    email: { type: 'string', nullable: true },
    phone: { type: 'string', nullable: true },
    customer: { kind: 'm:1', entity: () => Customer },
  },
})
