import { z } from 'zod'

import { query, statement } from '../../db/query.js'

/**
 * The suppression list's key for an address (email or E.164 phone): a SHA-256 of it, trimmed and in
 * lower case, computed by PostgreSQL alone, so that every statement that writes or reads the list
 * agrees on it. `expression` is SQL (a column, or `?`).
 */
export const addressHash = (expression: string) => `encode(sha256(convert_to(lower(btrim(${expression})), 'UTF8')), 'hex')`

/** The suppression list, as SQL (`?` placeholders, run through `em.execute`). */
export const SUPPRESSION_QUERIES = {
  /** Params: channel, address, reason. */
  suppress: statement(
    'suppressions.suppress',
    `insert into suppression (channel, address_hash, reason) values (?, ${addressHash('?')}, ?) on conflict do nothing`,
  ),
  /** Params: channel, address. */
  lift: query(
    'suppressions.lift',
    `delete from suppression where channel = ? and address_hash = ${addressHash('?')} returning reason`,
    z.strictObject({ reason: z.string() }),
  ),
  /** Params: channel, address. */
  find: query(
    'suppressions.find',
    `select channel, reason, floor(extract(epoch from created_at) * 1000)::float8 as since
           from suppression where channel = ? and address_hash = ${addressHash('?')}`,
    z.strictObject({ channel: z.enum(['email', 'sms']), reason: z.string(), since: z.number() }),
  ),
}

export type SuppressionRow = z.infer<typeof SUPPRESSION_QUERIES.find.row>
