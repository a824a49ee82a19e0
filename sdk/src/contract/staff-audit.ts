import { z } from 'zod'

import { EpochMillis, Id, LAST_MILLISECOND, PlainText } from '../schemas/common.js'
import { EXAMPLE_IDS } from '../schemas/examples.js'
import { STAFF_ROLES } from '../schemas/staff.js'
import { badRequestOf, staffRead } from './base.js'

const AUDIT_EXAMPLE = {
  id: 'aU3dNq1RZTaO2rUq9bS8fA',
  at: 1_781_947_800_000,
  memberId: EXAMPLE_IDS.member,
  role: 'owner',
  action: 'deleteEvent',
  targets: { eventId: EXAMPLE_IDS.event },
  status: 200,
  requestId: '5f0c6bd4-52a3-4d8f-9b1e-0a3c2f7e9d11',
  sourceIp: '203.0.113.7',
}

const AuditEvent = z
  .object({
    id: Id,
    at: EpochMillis,
    memberId: z.string(),
    role: z.enum(STAFF_ROLES).describe('Their role when they acted'),
    action: z.string().describe("The route's operation id, as in this document (`deleteEvent`, `exportGuests`)"),
    targets: z.record(z.string(), z.string()).describe("The route's path parameters: ids, never names or addresses"),
    status: z.int().describe('How it was answered (a refusal is recorded too)'),
    requestId: z.string().describe('`X-Request-Id` of the request'),
    sourceIp: z.string().describe('Where it came from, as the rate limiter counts it (IPv6 by /56)'),
  })
  .meta({
    examples: [AUDIT_EXAMPLE],
  })

const Filter = PlainText.min(1).max(200)

export const staffAudit = {
  list: staffRead
    .route({
      method: 'GET',
      path: '/staff/audit',
      operationId: 'listAuditEvents',
      summary: 'The audit trail: every staff change and every bulk read of guests’ data, newest first',
      description:
        'Owners only. Filters combine; `targetId` matches any id of the path (an event, a session, a member). A page holds `limit` events (50 by default); pass `nextCursor` back as `cursor` for the next. Kept for `AUDIT_RETENTION_DAYS` (365).',
      tags: ['Staff'],
    })
    .meta({ role: 'owner' })
    .errors(badRequestOf('invalid_cursor'))
    .input(
      z.strictObject({
        memberId: Filter.optional(),
        action: Filter.optional(),
        targetId: Filter.optional(),
        since: z.coerce.number<number>().int().min(0).max(LAST_MILLISECOND).optional().describe('From this time (epoch ms), inclusive'),
        until: z.coerce.number<number>().int().min(0).max(LAST_MILLISECOND).optional().describe('Before this time (epoch ms)'),
        cursor: Filter.optional(),
        limit: z.coerce.number<number>().int().min(1).max(200).default(50),
      }),
    )
    .output(
      z
        .object({ events: z.array(AuditEvent), nextCursor: z.string().nullable() })
        .meta({ examples: [{ events: [AUDIT_EXAMPLE], nextCursor: null }] }),
    ),
}
