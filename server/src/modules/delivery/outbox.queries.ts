/**
 * The gallery link for every guest of a session, by email when the guest gave one and by SMS when
 * the guest gave a phone. Params: id prefix, link, session id.
 */
const GUEST_LINKS = `insert into outbox_message (id, session_id, session_guest_id, channel, recipient, link)
     select (select ?::text) || '-' || g.position || '-' || c.channel, g.session_id, g.id, c.channel,
            case c.channel when 'email' then g.email else g.phone end, ?
       from session_guest g
       cross join (values ('email'), ('sms')) as c (channel)
      where g.session_id = ?
        and case c.channel when 'email' then g.email else g.phone end is not null`

/**
 * The outbox's set-based statements, as SQL: each is one round trip that the entity manager would
 * make several of (and the claim must be one statement to be safe between instances). `?`
 * placeholders, run through `em.execute`; an array value is a list (`in (?)`).
 */
export const OUTBOX_QUERIES = {
  /** At completion. Params: id prefix, link, session id. */
  enqueue: `${GUEST_LINKS}
     returning id`,
  /**
   * Staff's resend: the links again, but not to a guest and channel with a message waiting, or one
   * created or sent within the last minute (a second click). On the database's clock, like every
   * time of the outbox (`created_at`'s default, what is due, `sent_at`): the rows of a completion
   * carry no other. Two resends racing past the check meet the partial unique index on waiting
   * messages, and the second inserts nothing. Params: id prefix, link, session id.
   */
  resend: `${GUEST_LINKS}
        and not exists (
          select 1 from outbox_message m
           where m.session_guest_id = g.id and m.channel = c.channel
             and (m.status = 'pending' or greatest(m.created_at, m.sent_at) > now() - interval '1 minute')
        )
     on conflict do nothing
     returning id`,
  /**
   * Claims a batch of due messages on the configured channels, skipping rows another instance
   * holds, and leases them: each counts an attempt and is due again when the lease runs out.
   * Params: channels, batch size, lease in milliseconds.
   */
  claim: `with due as (
         select id from outbox_message
          where status = 'pending' and next_attempt_at <= now() and channel in (?)
          order by next_attempt_at
          limit ?
          for update skip locked
       )
       update outbox_message m
          set attempts = m.attempts + 1, next_attempt_at = now() + ? * interval '1 millisecond'
         from due, session_guest g, session s, event_set st, event e
        where m.id = due.id and g.id = m.session_guest_id and s.id = m.session_id and st.id = s.set_id and e.id = st.event_id
       returning m.id, m.channel, m.recipient, m.link, m.attempts, e.name as "eventName", g.first_name as "guestName"`,
}
