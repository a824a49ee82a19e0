import { statement } from '../../db/query.js'

/** The customers' statements that are not MikroORM's. `?` placeholders, run through `em.execute`. */

/** The latest value of a column among the customer's remaining guest rows (`c`), with a condition of its own. */
const latest = (column: string, also = 'true') => `(
           select g.${column} from session_guest g
            where g.customer_id = c.id and g.${column} is not null and ${also}
            order by g.registered_at desc nulls last, g.id
            limit 1)`

/**
 * Rebuilds customers' contact details and names from the guest rows they still have, after some of
 * their registrations went (the purge, a deletion): a contact only an expired registration gave is
 * not kept on the person. A contact another customer holds is not taken (the unique indexes); should
 * neither remain free, the old one stays rather than break the rule that a customer has one. Param:
 * the customer ids.
 */
export const REBUILD_CUSTOMERS = statement(
  'customers.rebuild',
  `with n as (
         select c.id,
                ${latest('email', 'not exists (select 1 from customer o where o.id <> c.id and lower(o.email) = lower(g.email))')} as email,
                ${latest('phone', 'not exists (select 1 from customer o where o.id <> c.id and o.phone = g.phone)')} as phone,
                ${latest('first_name')} as first_name,
                ${latest('last_name')} as last_name
           from customer c
          where c.id in (?)
       )
       update customer c
          set email = coalesce(n.email, case when n.phone is null then c.email end),
              phone = coalesce(n.phone, case when n.email is null then c.phone end),
              first_name = coalesce(n.first_name, c.first_name),
              last_name = coalesce(n.last_name, c.last_name)
         from n
        where c.id = n.id`,
)
