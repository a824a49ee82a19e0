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

export const PEOPLE_QUERIES = {
  // The customer's own address, or any guest row's: a customer linked by phone keeps the email of
  // its first registration only (and one linked by email, its first phone). Parameters: the value twice.
  byEmail: `${PERSON} where c.id in (select id from customer where lower(email) = lower(?)
                                       union select customer_id from session_guest where lower(email) = lower(?))
   order by c.created_at, c.id`,
  byPhone: `${PERSON} where c.id in (select id from customer where phone = ? union select customer_id from session_guest where phone = ?)
   order by c.created_at, c.id`,
  /** Their guest rows, oldest session first, with where each was. */
  registrations: `select g.id as guest_id, g.first_name, g.last_name, g.email, g.phone, g.marketing_opt_in, g.listed, g.listing_choice, g.privacy_notice_version,
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
  /** Their sessions, each with whether anyone else was a guest of it; locked for the erasure. */
  sessionsToErase: `select s.id, st.event_id,
         exists (select 1 from session_guest o where o.session_id = s.id and o.customer_id <> ?) as shared
    from session s
    join event_set st on st.id = s.set_id
   where s.id in (select g.session_id from session_guest g where g.customer_id = ?)
   order by s.id
     for update of s`,
} as const

export type PersonRow = {
  id: string
  email: string | null
  phone: string | null
  first_name: string
  last_name: string
  registrations: number
  events: { id: string; slug: string; name: string }[]
}

export type RegistrationRow = {
  guest_id: string
  first_name: string
  last_name: string
  email: string | null
  phone: string | null
  marketing_opt_in: boolean
  listed: boolean
  listing_choice: boolean | null
  privacy_notice_version: string | null
  registered_at: number
  event_id: string
  event_slug: string
  event_name: string
  start_at: number
  set_id: string
  set_slug: string
  set_name: string
  session_id: string
  status: 'active' | 'completed' | 'cancelled'
  photo_count: number
}

export type SessionToEraseRow = { id: string; event_id: string; shared: boolean }
