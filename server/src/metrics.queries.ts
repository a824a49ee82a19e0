import { z } from 'zod'

import { query } from './db/query.js'

/**
 * The outbox's messages by channel and status, with the age of each group's oldest (seconds), and
 * (channel null) the photos queued for copies. One statement: the photos' count reads the partial
 * index on queued photos, never the table.
 */
export const BACKLOG_QUERY = query(
  'metrics.backlog',
  `select channel, status, count(*)::int as count, extract(epoch from now() - min(created_at))::float8 as oldest
    from outbox_message group by channel, status
  union all select null, 'queued', count(*)::int, null from photo where image_status = 'queued'`,
  z.strictObject({ channel: z.string().nullable(), status: z.string(), count: z.number(), oldest: z.number().nullable() }),
)

export type BacklogCount = z.infer<typeof BACKLOG_QUERY.row>
