/**
 * The suppression list's key for an address (email or E.164 phone): a SHA-256 of it, trimmed and in
 * lower case, computed by PostgreSQL alone, so that every statement that writes or reads the list
 * agrees on it. `expression` is SQL (a column, or `?`).
 */
export const addressHash = (expression: string) => `encode(sha256(convert_to(lower(btrim(${expression})), 'UTF8')), 'hex')`

/** The suppression list, and the states the providers report, as SQL (`?` placeholders, run through `em.execute`). */
export const RECEIPT_QUERIES = {
  /**
   * A provider's report on one message, found by our id (Postmark's metadata, the status callback's
   * URL) or by the provider's: the new state, with its time and reason, but only from a state it may
   * follow (`from`), so that a repeated or late report changes nothing. Params: status, delivered at
   * (or null), reason (or null), channel, our id (or null), provider's id (or null), the states it may follow (a list).
   */
  report: `update outbox_message m
          set status = ?, delivered_at = coalesce(?::timestamptz, m.delivered_at), last_error = coalesce(?::text, m.last_error)
        where m.channel = ? and (m.id = ? or m.provider_message_id = ?) and m.status in (?)
       returning m.id`,
  /** Params: channel, address, reason. */
  suppress: `insert into suppression (channel, address_hash, reason) values (?, ${addressHash('?')}, ?) on conflict do nothing`,
  /** Params: channel, address. */
  lift: `delete from suppression where channel = ? and address_hash = ${addressHash('?')} returning reason`,
  /** Params: channel, address. */
  find: `select channel, reason, floor(extract(epoch from created_at) * 1000)::float8 as since
           from suppression where channel = ? and address_hash = ${addressHash('?')}`,
}

/**
 * How long a webhook's delivery is remembered (`webhook_replay`): far longer than Twilio retries one
 * (15 s at most), so that a signed request captured and sent again within a month changes nothing.
 */
export const REPLAY_MEMORY = "interval '30 days'"

/** The webhook deliveries seen, as SQL (`?` placeholders, run through `em.execute`). */
export const REPLAY_QUERIES = {
  /** Forgets deliveries older than the memory; the index on `seen_at` keeps it a short read. */
  forget: `delete from webhook_replay where seen_at < now() - ${REPLAY_MEMORY}`,
  /**
   * Records one key of a delivery (hashed here), answering a row only when it was not seen within the
   * memory: the primary key decides between two instances given the same delivery at once. Param: the key.
   */
  remember: `insert into webhook_replay as r (key_hash) values (encode(sha256(convert_to(?, 'UTF8')), 'hex'))
             on conflict (key_hash) do update set seen_at = excluded.seen_at where r.seen_at < now() - ${REPLAY_MEMORY}
             returning r.key_hash`,
}

export type SuppressionRow = { channel: 'email' | 'sms'; reason: string; since: number }
