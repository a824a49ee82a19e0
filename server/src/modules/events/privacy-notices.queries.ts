import { z } from 'zod'

import { query } from '../../db/query.js'

/**
 * Whether a set's event has ever published a privacy-notice version (`event_privacy_notice`, kept by
 * a trigger on the event's row): one indexed statement, read when a registration names its version.
 */
export const NOTICE_PUBLISHED = query(
  'events.noticePublished',
  `select 1 as published
    from event_set s
    join event_privacy_notice n on n.event_id = s.event_id
   where s.id = ? and n.version = ?`,
  z.strictObject({ published: z.number() }),
)
