import { z } from 'zod'

import { query, statement } from '../../db/query.js'

/**
 * The copies worker's statements, as SQL: the claim must be one statement to be safe between
 * instances, as the outbox's is. `?` placeholders, run through `em.execute`.
 */
const ID_ROW = z.strictObject({ id: z.string() })

export const COPIES_QUERIES = {
  /**
   * Claims queued photos that are due, skipping rows another instance holds, and leases them: each
   * counts an attempt and is due again when the lease runs out (its instance died). Params: most
   * rows, lease in milliseconds.
   */
  claim: query(
    'copies.claim',
    `with due as (
         select id from photo
          where image_status = 'queued' and image_due_at <= now()
          -- Every session's first photo before any other (the grid's first, the link preview's source:
          -- what a guest who opens the link at the end of the event sees first), then first come,
          -- first served (a session's photos share their completion's due time), in gallery order.
          order by position > 1, image_due_at, position
          limit ?
          for update skip locked
       )
       update photo p
          set image_attempts = p.image_attempts + 1, image_due_at = now() + ? * interval '1 millisecond'
         from due
        where p.id = due.id
       returning p.id, p.session_id, p.position, p.storage_key, p.width, p.height, p.size_bytes, p.etag, p.image_attempts, p.full_size, p.full_etag`,
    z.strictObject({
      id: z.string(),
      session_id: z.string(),
      position: z.number(),
      storage_key: z.string(),
      width: z.number(),
      height: z.number(),
      size_bytes: z.number(),
      etag: z.string().nullable(),
      image_attempts: z.number(),
      full_size: z.number().nullable(),
      full_etag: z.string().nullable(),
    }),
  ),
  /** Locks the session while one of its photos is settled, so that the last one to settle sees the others'. */
  lockSession: query('copies.lockSession', 'select id from session where id = ? for update', ID_ROW),
  /** Params: status, error, full size, full ETag, width, height, copies (JSON), preview, photo id. */
  settlePhoto: query(
    'copies.settlePhoto',
    `update photo
          set image_status = ?, image_error = ?, full_size = coalesce(full_size, ?), full_etag = coalesce(full_etag, ?),
              width = ?, height = ?, copies = ?::jsonb, preview = ?
        where id = ? and image_status = 'queued'
       returning id`,
    ID_ROW,
  ),
  /**
   * Counts the settled photo into the session's version, and marks the session ready when none of
   * its photos is queued any more; answers whether this settle made it so. Params: session id (twice).
   */
  settleSession: query(
    'copies.settleSession',
    `update session s
          set images_settled = s.images_settled + 1,
              images_ready_at = coalesce(s.images_ready_at, case when exists (select 1 from photo q where q.session_id = ? and q.image_status = 'queued') then null else now() end)
        where s.id = ?
       returning s.images_ready_at is not null and s.images_ready_at = now() as "becameReady"`,
    z.strictObject({ becameReady: z.boolean() }),
  ),
  /**
   * The session's gallery links, held at completion for the copies (COPIES_LINK_WAIT), go now; a
   * message already tried keeps its backoff. Param: session id.
   */
  releaseLinks: query(
    'copies.releaseLinks',
    `update outbox_message
          set next_attempt_at = now()
        where session_id = ? and status = 'pending' and attempts = 0 and next_attempt_at > now()
       returning id`,
    ID_ROW,
  ),
  /**
   * An attempt that failed for a reason outside the photo (storage, the database): due again later,
   * its attempt given back when the cause was an outage. Params: attempts given back (0 or 1), delay
   * ms, error, photo id.
   */
  retryLater: statement(
    'copies.retryLater',
    `update photo set image_attempts = image_attempts - ?, image_due_at = now() + ? * interval '1 millisecond', image_error = ?
        where id = ? and image_status = 'queued'`,
  ),
  /** The full-size copy, made ahead of the worker by a download: recorded once. Params: size, ETag, photo id. */
  recordFullSize: query(
    'copies.recordFullSize',
    'update photo set full_size = coalesce(full_size, ?), full_etag = coalesce(full_etag, ?) where id = ? returning full_size, full_etag',
    z.strictObject({ full_size: z.number(), full_etag: z.string() }),
  ),
  /** Photos recorded before copies existed, queued for the worker. Param: most rows. */
  queueLegacy: query(
    'copies.queueLegacy',
    `update photo set image_status = 'queued', image_due_at = now(), image_attempts = 0
        where id in (select id from photo where image_status = 'legacy' limit ? for update skip locked)
       returning id`,
    ID_ROW,
  ),
  /** How far the copies are: photos by status. */
  progress: query(
    'copies.progress',
    `select image_status as status, count(*)::int as count from photo group by image_status`,
    z.strictObject({ status: z.enum(['legacy', 'queued', 'ready', 'failed']), count: z.number() }),
  ),
}

export type ClaimedPhoto = z.infer<typeof COPIES_QUERIES.claim.row>
