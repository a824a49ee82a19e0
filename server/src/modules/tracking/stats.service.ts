import type { EventStats, SessionStats } from '@photobooth/sdk/schemas'
import type { z } from 'zod'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { NO_SUCH_SESSION } from '../sessions/index.js'
import { NO_SUCH_EVENT } from '../events/index.js'
import { STATS_QUERIES, type SessionStatsRow } from './stats.queries.js'
import { run } from '../../db/query.js'

type Deps = Pick<AppContext, 'em'>

const toSessionStats = (row: SessionStatsRow): z.output<typeof SessionStats> => ({
  views: row.views,
  shares: {
    total: row.shares,
    facebook: row.share_facebook,
    instagram: row.share_instagram,
    tiktok: row.share_tiktok,
    copy: row.share_copy,
    native: row.share_native,
  },
  downloads: row.downloads,
  zips: row.zips,
  guests: row.guests,
  messages: { pending: row.pending, sent: row.sent, failed: row.failed },
})

/** A session's views, shares by channel, downloads and zips, its guests and its messages by state. */
export async function sessionStats({ em }: Deps, { sessionId }: { sessionId: string }): Promise<z.output<typeof SessionStats>> {
  const [row] = await run(em, STATS_QUERIES.session, [sessionId])
  if (!row) throw new AppError('no_such_session', NO_SUCH_SESSION)
  return toSessionStats(row)
}

/** The same over every session of an event (views of its page included), its sessions by state, and the hourly series. */
export async function eventStats({ em }: Deps, { eventId }: { eventId: string }): Promise<z.output<typeof EventStats>> {
  const [row] = await run(em, STATS_QUERIES.event, [eventId])
  if (!row) throw new AppError('no_such_event', NO_SUCH_EVENT)
  return {
    ...toSessionStats(row),
    sessions: { active: row.active, completed: row.completed, cancelled: row.cancelled },
    hourly: await run(em, STATS_QUERIES.hourly, [eventId, eventId]),
  }
}
