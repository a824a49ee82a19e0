import type { AppContext } from '../../context.js'
import { TrackingEvent, type ShareChannel, type TrackingKind } from '../../db/entities/tracking-event.entity.js'

/** One count: kind, event, session and time, and nothing about the visitor. */
export async function recordTracking(
  em: AppContext['em'],
  row: { kind: TrackingKind; eventId: string; sessionId?: string; channel?: ShareChannel; at: Date },
): Promise<void> {
  await em.insert(TrackingEvent, { kind: row.kind, channel: row.channel, event: row.eventId, session: row.sessionId, createdAt: row.at })
}
