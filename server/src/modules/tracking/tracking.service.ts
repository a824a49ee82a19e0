import type { PoolSql } from '../../db/pool-sql.js'

export type TrackingKind = 'view' | 'share' | 'download' | 'zip'

/** One count: kind, event, session and time, and nothing about the visitor. */
export async function recordTracking(
  db: PoolSql,
  row: { kind: TrackingKind; eventId: string; sessionId?: string; channel?: string; at: Date },
): Promise<void> {
  await db.rows('insert into tracking_event (kind, channel, event_id, session_id, created_at) values ($1, $2, $3, $4, $5)', [
    row.kind,
    row.channel ?? null,
    row.eventId,
    row.sessionId ?? null,
    row.at,
  ])
}
