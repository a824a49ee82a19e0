import { z } from 'zod'

import { EpochMillis, Id, Slug } from './common.js'

export const EventSummary = z.object({
  id: Id,
  slug: Slug,
  name: z.string(),
})

export const GalleryEventSummary = EventSummary.extend({ startAt: EpochMillis })

export const SetSummary = z.object({
  id: Id,
  slug: Slug,
  name: z.string(),
})
