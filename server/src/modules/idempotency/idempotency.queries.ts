import { z } from 'zod'

import { query, statement } from '../../db/query.js'

/**
 * The idempotency keys' SQL (`?` placeholders, run through `em.execute`). Every statement is one
 * autocommitted round trip: a claim must be visible to the other instances at once, not at the end of
 * some transaction.
 */

/**
 * Claims a key: inserts it `running`, or takes over a row that no longer counts, and returns the
 * owner; returns nothing when the key is someone else's to answer. A row no longer counts once it has
 * expired (24 hours: the key acts again, whatever it was used for), or when it is still `running`
 * for the same request past its lease (its process died mid-way: the request runs again, as it
 * would have without a key). Parameters: scope, key, owner, request, body hash, now, expires at,
 * locked until.
 */
export const CLAIM = query(
  'idempotency.claim',
  `insert into idempotency_key as k (scope, key, owner, request, body_hash, state, created_at, expires_at, locked_until)
  values (?, ?, ?, ?, ?, 'running', ?, ?, ?)
  on conflict (scope, key) do update
     set owner = excluded.owner, request = excluded.request, body_hash = excluded.body_hash, state = 'running',
         status = null, content_type = null, body = null,
         created_at = excluded.created_at, expires_at = excluded.expires_at, locked_until = excluded.locked_until
   where k.expires_at <= excluded.created_at
      or (k.state = 'running' and k.locked_until <= excluded.created_at and k.request = excluded.request and k.body_hash = excluded.body_hash)
  returning owner`,
  z.strictObject({ owner: z.string() }),
)

/** The live row of a key (expired rows are ignored). Parameters: scope, key, now. */
export const FIND = query(
  'idempotency.find',
  `select request, body_hash, state, status, content_type, body
    from idempotency_key
   where scope = ? and key = ? and expires_at > ?`,
  z.strictObject({
    request: z.string(),
    body_hash: z.string(),
    state: z.enum(['running', 'done']),
    status: z.number().nullable(),
    content_type: z.string().nullable(),
    body: z.instanceof(Buffer).nullable(),
  }),
)

export type KeyRow = z.infer<typeof FIND.row>

/** The owner stores its answer. Parameters: status, content type, body, scope, key, owner. */
export const FINISH = statement(
  'idempotency.finish',
  `update idempotency_key set state = 'done', status = ?, content_type = ?, body = ?
   where scope = ? and key = ? and owner = ? and state = 'running'`,
)

/** The owner gives the key up (a 5xx, an answer not stored): a retry runs again. Parameters: scope, key, owner. */
export const RELEASE = statement(
  'idempotency.release',
  `delete from idempotency_key where scope = ? and key = ? and owner = ? and state = 'running'`,
)

/** The owner, still running, extends its lease. Parameters: locked until, scope, key, owner. */
export const RENEW = statement(
  'idempotency.renew',
  `update idempotency_key set locked_until = ? where scope = ? and key = ? and owner = ? and state = 'running'`,
)

/** Removes expired keys. Parameter: now. */
export const PRUNE = statement('idempotency.prune', `delete from idempotency_key where expires_at <= ?`)

/**
 * The stored answers that name any of these sessions (a registration's label, a staff read of its
 * guests) become a 410 that names nothing: a deleted session's guests' data must not outlive it in a
 * replay, and a kiosk's queue replaying the registration after a guest's erasure must be told it is
 * gone rather than make the session, and the person, again. Parameters: the 410's body, the
 * `%<session id>%` patterns. Ids are base64url, so `_` may be in one: LIKE reads it as any character,
 * which can only forget more answers, never fewer.
 */
export const FORGET_SESSIONS = statement(
  'idempotency.forgetSessions',
  `update idempotency_key set status = 410, content_type = 'application/json', body = convert_to(?, 'UTF8')
   where body is not null and convert_from(body, 'UTF8') like any (array[?])`,
)
