import { z } from 'zod'

import { query } from '../../db/query.js'
import { epochMillis } from '../../db/sql.js'

/**
 * The claims' SQL (`?` placeholders, run through `em.execute`). A claim is taken by one statement, so
 * that two booths asking at once never get the same session: `for update skip locked` makes the
 * second pass over the row the first is claiming, and the conflict clause overwrites only a lapsed
 * claim, or the claimant's own (a renewal).
 */
const SESSION_ID = z.strictObject({ sessionId: z.string() })

export const CLAIM_QUERIES = {
  /**
   * The oldest active session of a set that nobody holds (this booth's own claims included: the next
   * group gets the next session), claimed. Params: set id, now, booth key id, holder, now, expiry.
   */
  claimNext: query(
    'claims.claimNext',
    `with next as (
      select s.id from session s
       where s.set_id = ? and s.status = 'active'
         and not exists (select 1 from session_claim c where c.session_id = s.id and c.expires_at > ?)
       order by s.created_at, s.id
       limit 1
       for update of s skip locked
    )
    insert into session_claim (session_id, booth_key_id, holder, claimed_at, expires_at)
    select id, ?, ?, ?, ? from next
    on conflict (session_id) do update
       set booth_key_id = excluded.booth_key_id, holder = excluded.holder, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
     where session_claim.expires_at <= excluded.claimed_at
    returning session_id as "sessionId"`,
    SESSION_ID,
  ),
  /** One session claimed, unless someone else holds it. Params: session id, booth key id, holder, now, expiry. */
  claim: query(
    'claims.claim',
    `insert into session_claim (session_id, booth_key_id, holder, claimed_at, expires_at) values (?, ?, ?, ?, ?)
    on conflict (session_id) do update
       set booth_key_id = excluded.booth_key_id, holder = excluded.holder, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
     where session_claim.expires_at <= excluded.claimed_at
        or (session_claim.booth_key_id = excluded.booth_key_id and session_claim.holder = excluded.holder)
    returning session_id as "sessionId"`,
    SESSION_ID,
  ),
  /** Sessions of a set held by someone else than this claimant now. Params: set id, now, booth key id, holder. */
  heldByOthers: query(
    'claims.heldByOthers',
    `select c.session_id as "sessionId" from session_claim c join session s on s.id = c.session_id
     where s.set_id = ? and s.status = 'active' and c.expires_at > ? and not (c.booth_key_id = ? and c.holder = ?)`,
    SESSION_ID,
  ),
  /** The live claims on these active sessions (a list), with the key's name, for staff Params: ids, now. */
  live: query(
    'claims.live',
    `select c.session_id as "sessionId", c.booth_key_id as "boothKeyId", k.name as "boothName", c.holder,
            ${epochMillis('c.claimed_at')} as "claimedAt", ${epochMillis('c.expires_at')} as "expiresAt"
       from session_claim c join session s on s.id = c.session_id join booth_key k on k.id = c.booth_key_id
      where c.session_id in (?) and s.status = 'active' and c.expires_at > ?`,
    z.strictObject({
      sessionId: z.string(),
      boothKeyId: z.string(),
      boothName: z.string(),
      holder: z.string(),
      claimedAt: z.number(),
      expiresAt: z.number(),
    }),
  ),
}

export type LiveClaimRow = z.infer<typeof CLAIM_QUERIES.live.row>
