import { z } from 'zod'

import { Id } from './common.js'
import { EXAMPLE_PHOTO } from './examples.js'

export const Photo = z
  .object({
    id: Id,
    url: z.url().describe('Absolute URL on the CDN; rendering it is not counted as a download'),
    width: z.int().min(1).max(100_000).describe('Pixels'),
    height: z.int().min(1).max(100_000).describe('Pixels'),
  })
  .meta({ examples: [EXAMPLE_PHOTO] })
