import { z } from 'zod'

import { EpochMillis, Id, Slug } from './common.js'
import { EXAMPLE_EVENT, EXAMPLE_GALLERY_EVENT, EXAMPLE_SET } from './examples.js'

export const EventSummary = z
  .object({
    id: Id,
    slug: Slug,
    name: z.string(),
  })
  .meta({ examples: [EXAMPLE_EVENT] })

export const GalleryEventSummary = EventSummary.extend({ startAt: EpochMillis }).meta({ examples: [EXAMPLE_GALLERY_EVENT] })

export const SetSummary = z
  .object({
    id: Id,
    slug: Slug,
    name: z.string(),
  })
  .meta({ examples: [EXAMPLE_SET] })
