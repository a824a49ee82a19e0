import { EntitySchema } from '@mikro-orm/core'

/**
 * One staff action (modules/audit): who did it, with which role, what (the contract's operation id),
 * on which rows (the path's ids), when, and how it was answered. Never personal data: no body, no
 * query, no name or address; the source address is the staff member's, as the rate limiter sees it.
 * Append-only: nothing updates a row, and only the retention prune deletes them.
 */
export class AuditEvent {
  id!: string
  at = new Date()
  memberId!: string
  role!: string
  action!: string
  /** The route's path parameters: `{ eventId, sessionId, … }`, ids only. */
  targets!: Record<string, string>
  status!: number
  requestId!: string
  sourceIp!: string
}

export const AuditEventSchema = new EntitySchema<AuditEvent>({
  class: AuditEvent,
  tableName: 'audit_event',
  indexes: [
    // The listing's order and cursor, newest first.
    { name: 'audit_event_at_id_index', properties: ['at', 'id'] },
    { name: 'audit_event_member_id_index', properties: ['memberId'] },
  ],
  properties: {
    id: { type: 'text', primary: true },
    at: { type: 'Date', defaultRaw: 'now()' },
    memberId: { type: 'text' },
    role: { type: 'text' },
    action: { type: 'text' },
    targets: { type: 'json' },
    status: { type: 'integer' },
    requestId: { type: 'text' },
    sourceIp: { type: 'text' },
  },
})
