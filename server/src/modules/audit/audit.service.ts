import type { AppContext, Services } from '../../context.js'
import { AppError } from '../../errors.js'
import { AuditEvent } from '../../db/entities/audit-event.entity.js'
import { AUDIT_QUERIES } from './audit.queries.js'
import { run } from '../../db/query.js'

export type AuditQuery = {
  memberId?: string
  action?: string
  targetId?: string
  since?: number
  until?: number
  cursor?: string
  limit: number
}

/** The trail for owners, newest first, a page at a time; `nextCursor` names the last row given. */
export async function listAuditEvents({ em }: Pick<AppContext, 'em'>, query: AuditQuery) {
  if (query.cursor !== undefined && (await em.count(AuditEvent, { id: query.cursor })) === 0) {
    throw new AppError('invalid_cursor', 'The cursor names no audit event (it may have expired): start again without it')
  }
  const twice = (value: unknown) => [value ?? null, value ?? null]
  const at = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString())
  const rows = await run(em, AUDIT_QUERIES.list, [
    ...twice(query.memberId),
    ...twice(query.action),
    ...twice(query.targetId),
    ...twice(at(query.since)),
    ...twice(at(query.until)),
    ...twice(query.cursor),
    query.limit + 1,
  ])
  const page = rows.slice(0, query.limit)
  return { events: page, nextCursor: rows.length > query.limit ? page.at(-1)!.id : null }
}

/** The trail older than its retention (`AUDIT_RETENTION_DAYS`) goes: run with the purge. Answers how many rows. */
export async function pruneAuditEvents({ orm, now, config }: Pick<Services, 'orm' | 'now' | 'config'>): Promise<number> {
  const cutoff = new Date(now().getTime() - config.auditRetentionDays * 86_400_000)
  return orm.em.fork().nativeDelete(AuditEvent, { at: { $lt: cutoff } })
}
