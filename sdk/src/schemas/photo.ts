import { z } from 'zod'

import { Id } from './common.js'
import { EXAMPLE_PHOTO } from './examples.js'

export const DisplayCopy = z
  .object({
    url: z.url().describe('Absolute URL on the CDN; immutable, cached for a year'),
    width: z.int().min(1).max(100_000).describe('Pixels'),
    height: z.int().min(1).max(100_000).describe('Pixels'),
    type: z.literal('image/webp'),
  })
  .describe('A display copy: upright, sRGB, without any metadata')

export const Photo = z
  .object({
    id: Id,
    url: z
      .url()
      .describe(
        'Absolute URL on the CDN of the full-size photo (what the download and the zip hold): upright, without EXIF location or camera tags; rendering it is not counted as a download',
      ),
    width: z.int().min(1).max(100_000).describe('Pixels of the full-size photo, as shown upright'),
    height: z.int().min(1).max(100_000).describe('Pixels of the full-size photo, as shown upright'),
    copies: z
      .array(DisplayCopy)
      .optional()
      .describe(
        'Smaller copies for screens, smallest first (480, 720, 960 and 1600 px on the long side, those smaller than the photo): a `srcset` with `url` as the largest candidate. Absent until they are made, a few seconds after completion, and for a photo they could not be made from',
      ),
  })
  .meta({ examples: [EXAMPLE_PHOTO] })

export const LinkPreview = z
  .object({
    url: z.url().describe('Absolute URL on the CDN'),
    width: z.literal(1200),
    height: z.literal(630),
    type: z.literal('image/jpeg'),
  })
  .describe("A link preview (Open Graph `og:image`) made from the gallery's first photo: at most 300 KB")
