import { z } from 'zod'

import { query } from '../../db/query.js'
import { epochMillis } from '../../db/sql.js'

/**
 * One person's reads, as SQL: a customer (a guest across events, linked by email first, then by
 * phone) with the events and guest rows that name them. `?` placeholders, run through `em.execute`.
 */

const PERSON = `select c.id, c.email, c.phone, c.first_name, c.last_name,
         (select count(*)::int from session_guest g where g.customer_id = c.id) as registrations,
         coalesce((select json_agg(json_build_object('id', e.id, 'slug', e.slug, 'name', e.name) order by e.start_at desc, e.id)
                     from (select distinct e.id, e.slug, e.name, e.start_at
                             from session_guest g
                             join session s on s.id = g.session_id
                             join event_set st on st.id = s.set_id
                             join event e on e.id = st.event_id
                            where g.customer_id = c.id) e), '[]'::json) as events
    from customer c`

const PERSON_ROW = z.strictObject({
  id: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  first_name: z.string(),
  last_name: z.string(),
  registrations: z.number(),
  events: z.array(z.strictObject({ id: z.string(), slug: z.string(), name: z.string() })),
})

export const PEOPLE_QUERIES = {
  // The customer's own address, or any guest row's: a customer linked by phone keeps the email of
  // its first registration only (and one linked by email, its first phone). Parameters: the value twice.
  byEmail: query(
    'people.byEmail',
    `${PERSON} where c.id in (select id from customer where lower(email) = lower(?)
                                       union select customer_id from session_guest where lower(email) = lower(?))
   order by c.created_at, c.id`,
    PERSON_ROW,
  ),
  byPhone: query(
    'people.byPhone',
    `${PERSON} where c.id in (select id from customer where phone = ? union select customer_id from session_guest where phone = ?)
   order by c.created_at, c.id`,
    PERSON_ROW,
  ),
  /** Their guest rows, oldest session first, with where each was. */
  registrations: query(
    'people.registrations',
    `select g.id as guest_id, g.first_name, g.last_name, g.email, g.phone, g.marketing_opt_in, g.listed, g.listing_choice, g.privacy_notice_version,
         ${epochMillis('coalesce(g.registered_at, s.created_at)')} as registered_at,
         e.id as event_id, e.slug as event_slug, e.name as event_name, ${epochMillis('e.start_at')} as start_at,
         st.id as set_id, st.slug as set_slug, st.name as set_name,
         s.id as session_id, s.status, s.photo_count
    from session_guest g
    join session s on s.id = g.session_id
    join event_set st on st.id = s.set_id
    join event e on e.id = st.event_id
   where g.customer_id = ?
   order by s.created_at, s.id, g.position`,
    z.strictObject({
      guest_id: z.string(),
      first_name: z.string(),
      last_name: z.string(),
      email: z.string().nullable(),
      phone: z.string().nullable(),
      marketing_opt_in: z.boolean(),
      listed: z.boolean(),
      listing_choice: z.boolean().nullable(),
      privacy_notice_version: z.string().nullable(),
      registered_at: z.number(),
      event_id: z.string(),
      event_slug: z.string(),
      event_name: z.string(),
      start_at: z.number(),
      set_id: z.string(),
      set_slug: z.string(),
      set_name: z.string(),
      session_id: z.string(),
      status: z.enum(['active', 'completed', 'cancelled']),
      photo_count: z.number(),
    }),
  ),
  /** Their sessions, each with whether anyone else was a guest of it; locked for the erasure. */
  sessionsToErase: query(
    'people.sessionsToErase',
    `select s.id, st.event_id,
         exists (select 1 from session_guest o where o.session_id = s.id and o.customer_id <> ?) as shared
    from session s
    join event_set st on st.id = s.set_id
   where s.id in (select g.session_id from session_guest g where g.customer_id = ?)
   order by s.id
     for update of s`,
    z.strictObject({ id: z.string(), event_id: z.string(), shared: z.boolean() }),
  ),
}

export type PersonRow = z.infer<typeof PERSON_ROW>
export type RegistrationRow = z.infer<typeof PEOPLE_QUERIES.registrations.row>
export type SessionToEraseRow = z.infer<typeof PEOPLE_QUERIES.sessionsToErase.row>
