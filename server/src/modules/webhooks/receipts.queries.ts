import { z } from 'zod'

import { query, statement } from '../../db/query.js'

/** The states the providers report, as SQL (`?` placeholders, run through `em.execute`). */
export const RECEIPT_QUERIES = {
  /**
   * A provider's report on one message, found by our id (Postmark's metadata, the status callback's
   * URL) or by the provider's: the new state, with its time and reason, but only from a state it may
   * follow (`from`), so that a repeated or late report changes nothing. Params: status, delivered at
   * (or null), reason (or null), channel, our id (or null), provider's id (or null), the states it may follow (a list).
   */
  report: query(
    'receipts.report',
    `update outbox_message m
          set status = ?, delivered_at = coalesce(?::timestamptz, m.delivered_at), last_error = coalesce(?::text, m.last_error)
        where m.channel = ? and (m.id = ? or m.provider_message_id = ?) and m.status in (?)
       returning m.id`,
    z.strictObject({ id: z.string() }),
  ),
}

/**
 * How long a webhook's delivery is remembered (`webhook_replay`): far longer than Twilio retries one
 * (15 s at most), so that a signed request captured and sent again within a month changes nothing.
 */
export const REPLAY_MEMORY = "interval '30 days'"

/** The webhook deliveries seen, as SQL (`?` placeholders, run through `em.execute`). */
export const REPLAY_QUERIES = {
  /** Forgets deliveries older than the memory; the index on `seen_at` keeps it a short read. */
  forget: statement('replays.forget', `delete from webhook_replay where seen_at < now() - ${REPLAY_MEMORY}`),
  /**
   * Records one key of a delivery (hashed here), answering a row only when it was not seen within the
   * memory: the primary key decides between two instances given the same delivery at once. Param: the key.
   */
  remember: query(
    'replays.remember',
    `insert into webhook_replay as r (key_hash) values (encode(sha256(convert_to(?, 'UTF8')), 'hex'))
             on conflict (key_hash) do update set seen_at = excluded.seen_at where r.seen_at < now() - ${REPLAY_MEMORY}
             returning r.key_hash`,
    z.strictObject({ key_hash: z.string() }),
  ),
}
