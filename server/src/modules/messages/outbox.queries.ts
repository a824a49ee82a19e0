import { z } from 'zod'

import { query, statement } from '../../db/query.js'
import { BRANDING_COLUMNS, BRANDING_ROW } from '../events/index.js'
import { addressHash } from './suppressions.queries.js'
import type { SuppressionReason } from '../../db/entities/suppression.entity.js'

/** A suppressed message's `last_error`, from the suppression's reason (SQL; null for none). */
const SUPPRESSED_BECAUSE = (reason: string) => `'The address is on the suppression list: ' || ${reason}`

/**
 * The gallery link for every guest of a session, by email when the guest gave one and by SMS when
 * the guest gave a phone, due after a hold (completion waits for the photos' copies). An address on
 * the suppression list gets its message recorded `suppressed`, never sent. Params: id prefix, link,
 * hold in milliseconds, session id.
 */
const GUEST_LINKS = `insert into outbox_message (id, session_id, session_guest_id, channel, recipient, link, next_attempt_at, status, last_error)
     select (select ?::text) || '-' || g.position || '-' || c.channel, g.session_id, g.id, c.channel,
            case c.channel when 'email' then g.email else g.phone end, ?, now() + ? * interval '1 millisecond',
            case when x.reason is null then 'pending' else 'suppressed' end, ${SUPPRESSED_BECAUSE('x.reason')}
       from session_guest g
       cross join (values ('email'), ('sms')) as c (channel)
       left join suppression x
         on x.channel = c.channel and x.address_hash = ${addressHash("case c.channel when 'email' then g.email else g.phone end")}
      where g.session_id = ?
        and case c.channel when 'email' then g.email else g.phone end is not null`

/**
 * The outbox's set-based statements, as SQL: each is one round trip that the entity manager would
 * make several of (and the claim must be one statement to be safe between instances). `?`
 * placeholders, run through `em.execute`; an array value is a list (`in (?)`).
 */
const QUEUED_ROW = z.strictObject({ id: z.string(), status: z.enum(['pending', 'suppressed']) })

export const OUTBOX_QUERIES = {
  /** At completion. Params: id prefix, link, hold in milliseconds, session id. */
  enqueue: query(
    'outbox.enqueue',
    `${GUEST_LINKS}
     returning id, status`,
    QUEUED_ROW,
  ),
  /**
   * Staff's resend: the links again, but not to a guest and channel with a message waiting, or one
   * created or sent within the last minute (a second click). On the database's clock, like every
   * time of the outbox (`created_at`'s default, what is due, `sent_at`): the rows of a completion
   * carry no other. Two resends racing past the check meet the partial unique index on waiting
   * messages, and the second inserts nothing. A suppressed message does not count as sent: each
   * resend records (and answers) the suppression again. Params: id prefix, link, hold (0), session id.
   */
  resend: query(
    'outbox.resend',
    `${GUEST_LINKS}
        and not exists (
          select 1 from outbox_message m
           where m.session_guest_id = g.id and m.channel = c.channel
             and (m.status = 'pending' or (m.status <> 'suppressed' and greatest(m.created_at, m.sent_at) > now() - interval '1 minute'))
        )
     on conflict do nothing
     returning id, status`,
    QUEUED_ROW,
  ),
  /**
   * Claims due messages of one channel, skipping rows another instance holds, and leases them: each
   * counts an attempt and is due again when the lease runs out. Read through the partial index on
   * waiting messages by channel and due time (`outbox_message_channel_due_idx`): a channel's claim
   * never walks another channel's backlog. Params: channel, most rows, lease in milliseconds, the
   * sender's name (null: the event's).
   */
  claim: query(
    'outbox.claim',
    `with due as (
         select m.id, x.reason from outbox_message m
           left join suppression x on x.channel = m.channel and x.address_hash = ${addressHash('m.recipient')}
          where m.status = 'pending' and m.channel = ? and m.next_attempt_at <= now()
          order by m.next_attempt_at
          limit ?
          for update of m skip locked
       ),
       -- Suppressed since it was queued (a bounce, a STOP): recorded so, never sent.
       suppressed as (
         update outbox_message m set status = 'suppressed', last_error = ${SUPPRESSED_BECAUSE('due.reason')}
           from due where m.id = due.id and due.reason is not null
       )
       update outbox_message m
          set attempts = m.attempts + 1, next_attempt_at = now() + ? * interval '1 millisecond'
         from due, session_guest g, session s, event_set st, event e
        where m.id = due.id and due.reason is null
          and g.id = m.session_guest_id and s.id = m.session_id and st.id = s.set_id and e.id = st.event_id
       returning m.id, m.channel, m.recipient, m.link, m.attempts, e.name as "eventName", g.first_name as "guestName",
                 coalesce(?::text, e.name) as "senderName", e.privacy_notice_url as "privacyNoticeUrl",
                 e.id as "eventId", ${BRANDING_COLUMNS},
                 (extract(epoch from m.created_at) * 1000)::float8 as "queuedAt",
                 (extract(epoch from m.retry_since) * 1000)::float8 as "retrySince"`,
    z.strictObject({
      id: z.string(),
      channel: z.enum(['email', 'sms']),
      recipient: z.string(),
      link: z.string(),
      attempts: z.number(),
      eventName: z.string(),
      guestName: z.string(),
      senderName: z.string(),
      privacyNoticeUrl: z.string().nullable(),
      eventId: z.string(),
      ...BRANDING_ROW,
      queuedAt: z.number(),
      retrySince: z.number(),
    }),
  ),
  /**
   * What became of claimed messages, all in one statement (a Postmark batch settles up to 500): per
   * message its status, attempts given back (a throttled or handed-back message was not judged by the
   * provider), provider id, last error, and when it is due again (`delay_ms` from now; null: unchanged).
   * Param: a JSON array of `Settlement`.
   */
  settle: statement(
    'outbox.settle',
    `with v as (
         select * from json_to_recordset(?::json)
           as v (id text, status text, refund integer, provider_message_id text, last_error text, keep_error boolean, delay_ms double precision, suppress text)
       ),
       settled as (
         update outbox_message m
            -- A provider's report may come before the send's own result is written: it is not taken back.
            set status = case when m.status in ('delivered', 'bounced', 'undelivered') then m.status else v.status end,
                attempts = m.attempts - v.refund,
                provider_message_id = coalesce(v.provider_message_id, m.provider_message_id),
                sent_at = case when v.status = 'sent' then now() else m.sent_at end,
                last_error = case when v.keep_error then m.last_error else v.last_error end,
                next_attempt_at = case when v.delay_ms is null then m.next_attempt_at else now() + v.delay_ms * interval '1 millisecond' end
           from v
          where m.id = v.id
         returning m.channel, m.recipient, v.suppress
       )
       insert into suppression (channel, address_hash, reason)
       select channel, ${addressHash('recipient')}, suppress from settled where suppress is not null
       on conflict do nothing`,
  ),
}

/**
 * Staff's bulk retry: the newest failed message of each guest and channel among `scope`'s, unless
 * that guest and channel has one waiting (the partial unique index allows one), pending and due
 * now with its attempts given back. `scope` selects the sessions (one param).
 */
const retryFailed = (scope: string) => `with chosen as (
         select distinct on (m.session_guest_id, m.channel) m.id, m.status from outbox_message m
          where m.session_id in (${scope})
            and not exists (
              select 1 from outbox_message w where w.session_guest_id = m.session_guest_id and w.channel = m.channel and w.status = 'pending'
            )
          order by m.session_guest_id, m.channel, m.created_at desc, m.id desc
       )
       update outbox_message m
          set status = 'pending', attempts = 0, next_attempt_at = now(), retry_since = now()
         from chosen
        where m.id = chosen.id and chosen.status = 'failed'
       returning m.id`

const RETRIED_ROW = z.strictObject({ id: z.string() })

export const RETRY_QUERIES = {
  /** Param: session id. */
  session: query('outbox.retrySession', retryFailed('select ?::text'), RETRIED_ROW),
  /** Param: event id. */
  event: query(
    'outbox.retryEvent',
    retryFailed('select s.id from session s join event_set st on st.id = s.set_id where st.event_id = ?'),
    RETRIED_ROW,
  ),
}

/** One row of `OUTBOX_QUERIES.settle`. */
export type Settlement = {
  id: string
  status: 'pending' | 'sent' | 'failed'
  refund: 0 | 1
  provider_message_id: string | null
  last_error: string | null
  keep_error: boolean
  delay_ms: number | null
  /** The provider refused the address for good (Twilio 21610, Postmark's inactive recipient): put it on the suppression list. */
  suppress: SuppressionReason | null
}
