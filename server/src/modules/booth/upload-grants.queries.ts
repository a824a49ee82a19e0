import { z } from 'zod'

import { query } from '../../db/query.js'

/** The upload grants' read, as SQL (`?` placeholders, run through `em.execute`). */
export const UPLOAD_GRANT_QUERIES = {
  /** Of these storage keys (a list), those granted to a booth key that is revoked now. */
  revoked: query(
    'uploadGrants.revoked',
    `select g.storage_key as "storageKey" from upload_grant g join booth_key k on k.id = g.booth_key_id
              where g.storage_key in (?) and k.revoked_at is not null`,
    z.strictObject({ storageKey: z.string() }),
  ),
}
