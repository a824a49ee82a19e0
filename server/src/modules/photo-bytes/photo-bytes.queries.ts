import { z } from 'zod'

import { query } from '../../db/query.js'

/** The local bucket's read of an upload, as SQL (`?` placeholders, run through `em.execute`). */
export const PHOTO_BYTES_QUERIES = {
  /**
   * How an upload (parameters: its key twice, its session's id) may be read: `legacy` when it is the
   * photo of a gallery completed before copies existed (its URL is the upload's own), `active` while
   * its session is active and the booth key it was granted to is not revoked; no row otherwise.
   */
  uploadState: query(
    'photoBytes.uploadState',
    `select case when exists (select 1 from photo p where p.session_id = s.id and p.storage_key = ? and p.image_status = 'legacy')
                        then 'legacy'
                        when s.status = 'active' and not exists (
                          select 1 from upload_grant g join booth_key k on k.id = g.booth_key_id
                           where g.storage_key = ? and k.revoked_at is not null)
                        then 'active' end as state
                  from session s where s.id = ?`,
    /** `legacy`: served as a gallery's photo; `active`: the booth's own upload, not yet a gallery's. */
    z.strictObject({ state: z.enum(['legacy', 'active']).nullable() }),
  ),
}

export type UploadState = NonNullable<z.infer<typeof PHOTO_BYTES_QUERIES.uploadState.row>['state']>
