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

export type SuppressionRow = { channel: 'email' | 'sms'; reason: string; since: number }
