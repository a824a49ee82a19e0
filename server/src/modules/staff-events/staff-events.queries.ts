import { z } from 'zod'

import { query } from '../../db/query.js'
import { isLive } from '../sessions/index.js'

/**
 * The staff's event counts, as SQL: one aggregate over every listed event's sessions, however many
 * events there are (`?` is the list of event ids). Photos are the completed sessions' `photo_count`,
 * recorded at completion, so the photo rows are not read.
 */
export const EVENT_COUNTS = query(
  'staffEvents.counts',
  `select st.event_id,
         count(*) filter (where s.status = 'active')::int as active,
         count(*) filter (where s.status = 'completed')::int as completed,
         count(*) filter (where s.status = 'cancelled')::int as cancelled,
         coalesce(sum(g.guests), 0)::int as guests,
         coalesce(sum(s.photo_count) filter (where s.status = 'completed'), 0)::int as photos,
         count(*) filter (where ${isLive('s')} and s.listed)::int as listed
    from event_set st
    join session s on s.set_id = st.id
    cross join lateral (select count(*) as guests from session_guest sg where sg.session_id = s.id) g
   where st.event_id in (?)
   group by st.event_id`,
  z.strictObject({
    event_id: z.string(),
    active: z.number(),
    completed: z.number(),
    cancelled: z.number(),
    guests: z.number(),
    photos: z.number(),
    listed: z.number(),
  }),
)

export type EventCountsRow = z.infer<typeof EVENT_COUNTS.row>
