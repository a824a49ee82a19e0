import { z } from 'zod'

import { query } from '../../db/query.js'

/** How long a used code is remembered: longer than it stays valid (the step before, now and the next: 90 s). */
export const USED_TOTP_MEMORY = "interval '2 minutes'"

export const USED_TOTP_QUERIES = {
  /**
   * Records a code's use by a member, forgetting their codes too old to be accepted again; answers a
   * row only the first time (the primary key decides between two sign-ins at once). Params: user id,
   * code hash, user id.
   */
  record: query(
    'usedTotp.record',
    `with forgotten as (delete from staff_used_totp where user_id = ? and used_at < now() - ${USED_TOTP_MEMORY})
       insert into staff_used_totp (user_id, code_hash) values (?, ?)
       on conflict do nothing
       returning user_id`,
    z.strictObject({ user_id: z.string() }),
  ),
}
