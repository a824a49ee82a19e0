import { raw, type EntityManager } from '@mikro-orm/postgresql'

import { AppError } from '../../errors.js'
import { newId } from '../../ids.js'
import { Customer } from '../../db/entities/customer.entity.js'

export type ContactDetails = { firstName: string; lastName: string; email?: string; phone?: string }

type Found = { id: string; email: string | null; phone: string | null }

/**
 * The customer of each guest: an existing one matched on email (case-insensitive) first, then
 * on phone, else a new one. Race-safe: the unique indexes decide, and a registration that lost
 * a race reads the winner's row instead of creating a second customer.
 */
export async function linkCustomers(em: EntityManager, guests: readonly ContactDetails[], now: Date): Promise<string[]> {
  const emails = [...new Set(guests.flatMap((g) => (g.email ? [g.email.toLowerCase()] : [])))]
  const phones = [...new Set(guests.flatMap((g) => (g.phone ? [g.phone] : [])))]
  // A skipped (conflicting) insert waited for the winner to commit, so the next read sees its row.
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findCustomers(em, emails, phones)
    const ids = guests.map((guest) => match(found, guest))
    const missing = guests.filter((_, index) => ids[index] === undefined)
    if (missing.length === 0) return ids as string[]
    await insertCustomers(em, planNewCustomers(missing), now)
  }
  // Three rounds of other registrations taking the same addresses at once: the client's retry settles it.
  throw new AppError('concurrent_change', 'Another registration with the same contact details was being saved: try again.')
}

function match(found: Found[], guest: ContactDetails): string | undefined {
  const email = guest.email?.toLowerCase()
  return (email && found.find((c) => c.email === email)?.id) || (guest.phone && found.find((c) => c.phone === guest.phone)?.id) || undefined
}

async function findCustomers(em: EntityManager, emails: string[], phones: string[]): Promise<Found[]> {
  const found = await em.find(
    Customer,
    {
      $or: [...(emails.length ? [{ [raw('lower(email)')]: { $in: emails } }] : []), ...(phones.length ? [{ phone: { $in: phones } }] : [])],
    },
    // Read afresh on every attempt: a row inserted by a concurrent registration is the point.
    { fields: ['id', 'email', 'phone'], disableIdentityMap: true },
  )
  return found.map((customer) => ({ id: customer.id, email: customer.email?.toLowerCase() ?? null, phone: customer.phone ?? null }))
}

/** One new customer per distinct person among guests that matched nobody, by the same rule. */
function planNewCustomers(guests: readonly ContactDetails[]): ContactDetails[] {
  const planned: ContactDetails[] = []
  for (const guest of guests) {
    const known = match(
      planned.map((p, i) => ({ id: String(i), email: p.email?.toLowerCase() ?? null, phone: p.phone ?? null })),
      guest,
    )
    if (known === undefined) planned.push(guest)
  }
  // A fixed insertion order keeps two registrations with the same new guests from deadlocking.
  return planned.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
}

const sortKey = (c: ContactDetails) => `${c.email?.toLowerCase() ?? ''}\u0000${c.phone ?? ''}`

/** A row that conflicts on either unique index is skipped: whoever committed it first is the customer. */
async function insertCustomers(em: EntityManager, customers: ContactDetails[], now: Date): Promise<void> {
  const rows = customers.map((c) => ({
    id: newId(),
    email: c.email,
    phone: c.phone,
    firstName: c.firstName,
    lastName: c.lastName,
    createdAt: now,
  }))
  await em.createQueryBuilder(Customer).insert(rows).onConflict().ignore().execute()
}
