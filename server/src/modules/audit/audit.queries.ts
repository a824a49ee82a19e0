import { z } from 'zod'

import { query } from '../../db/query.js'
import { STAFF_ROLES } from '@photobooth/sdk/schemas'

/** The audit trail's reads, as SQL (`?` placeholders, run through `em.execute`). */
export const AUDIT_QUERIES = {
  /**
   * Newest first, filtered, after the cursor's row. Params, each filter twice (null: any): member id,
   * action, target id (any path parameter's value), since, until (timestamps), cursor (an event id),
   * most rows.
   */
  list: query(
    'audit.list',
    `select a.id, floor(extract(epoch from a.at) * 1000)::float8 as at, a.member_id as "memberId", a.role, a.action,
                a.targets, a.status, a.request_id as "requestId", a.source_ip as "sourceIp"
           from audit_event a
          where (?::text is null or a.member_id = ?)
            and (?::text is null or a.action = ?)
            and (?::text is null or exists (select 1 from jsonb_each_text(a.targets) t where t.value = ?))
            and (?::timestamptz is null or a.at >= ?)
            and (?::timestamptz is null or a.at < ?)
            and (?::text is null or (a.at, a.id) < (select c.at, c.id from audit_event c where c.id = ?))
          order by a.at desc, a.id desc
          limit ?`,
    z.strictObject({
      id: z.string(),
      at: z.number(),
      memberId: z.string(),
      role: z.enum(STAFF_ROLES),
      action: z.string(),
      targets: z.record(z.string(), z.string()),
      status: z.number(),
      requestId: z.string(),
      sourceIp: z.string(),
    }),
  ),
}

export type AuditRow = z.infer<typeof AUDIT_QUERIES.list.row>
