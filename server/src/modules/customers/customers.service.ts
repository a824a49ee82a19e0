import type { EntityManager } from '@mikro-orm/postgresql'

import { newId } from '../../ids.js'

export type ContactDetails = { firstName: string; lastName: string; email?: string; phone?: string }

type Found = { id: string; email: string | null; phone: string | null }

/**
 * The customer of each guest: an existing one matched on email (case-insensitive) first, then
 * on phone, else a new one. Race-safe: the unique indexes decide, and a registration that lost
 * a race reads the winner's row instead of creating a second customer.
 */
export async function linkCustomers(em: EntityManager, guests: readonly ContactDetails[]): Promise<string[]> {
  const emails = [...new Set(guests.flatMap((g) => (g.email ? [g.email.toLowerCase()] : [])))]
  const phones = [...new Set(guests.flatMap((g) => (g.phone ? [g.phone] : [])))]
  // A skipped (conflicting) insert waited for the winner to commit, so the next read sees its row.
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findCustomers(em, emails, phones)
    const ids = guests.map((guest) => match(found, guest))
    const missing = guests.filter((_, index) => ids[index] === undefined)
    if (missing.length === 0) return ids as string[]
    await insertCustomers(em, planNewCustomers(missing))
  }
  throw new Error('customer linking did not settle after three attempts')
}

function match(found: Found[], guest: ContactDetails): string | undefined {
  const email = guest.email?.toLowerCase()
  return (
    (email && found.find((c) => c.email === email)?.id) || (guest.phone && found.find((c) => c.phone === guest.phone)?.id) || undefined
  )
}

async function findCustomers(em: EntityManager, emails: string[], phones: string[]): Promise<Found[]> {
  const conditions: string[] = []
  const params: unknown[] = []
  if (emails.length) {
    conditions.push('lower(email) in (?)')
    params.push(emails)
  }
  if (phones.length) {
    conditions.push('phone in (?)')
    params.push(phones)
  }
  return em.execute<Found[]>(
    `select id, lower(email) as email, phone from customer where ${conditions.join(' or ')}`,
    params,
  )
}

/** One new customer per distinct person among guests that matched nobody, by the same rule. */
function planNewCustomers(guests: readonly ContactDetails[]): ContactDetails[] {
  const planned: ContactDetails[] = []
  for (const guest of guests) {
    const known = match(planned.map((p, i) => ({ id: String(i), email: p.email?.toLowerCase() ?? null, phone: p.phone ?? null })), guest)
    if (known === undefined) planned.push(guest)
  }
  // A fixed insertion order keeps two registrations with the same new guests from deadlocking.
  return planned.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
}

const sortKey = (c: ContactDetails) => `${c.email?.toLowerCase() ?? ''}\u0000${c.phone ?? ''}`

async function insertCustomers(em: EntityManager, customers: ContactDetails[]): Promise<void> {
  const values = customers.map(() => '(?, ?, ?, ?, ?)').join(', ')
  const params = customers.flatMap((c) => [newId(), c.email ?? null, c.phone ?? null, c.firstName, c.lastName])
  await em.execute(
    `insert into customer (id, email, phone, first_name, last_name) values ${values} on conflict do nothing`,
    params,
  )
}
