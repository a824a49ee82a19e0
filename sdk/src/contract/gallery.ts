import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { EventPage, Gallery } from '../schemas/session.js'
import { badRequestOf, base, notFoundOf, pathKey } from './base.js'

const tags = ['Gallery']

export const gallery = {
  getEventPage: base
    .route({
      method: 'GET',
      path: '/gallery/events/{slug}',
      operationId: 'getEventPage',
      summary: "An event's page: every set with its latest 12 live sessions, newest first",
      description:
        'A private event answers 404 `{ "error": "no such event" }`; its session galleries still work. A set holding more live sessions than it lists has a `nextCursor`: pass it as `cursor` for that set\'s next 12 (the answer then holds that set alone), until a page has none.',
      tags,
    })
    .errors({ ...badRequestOf('invalid_cursor'), ...notFoundOf('no_such_event') })
    .input(
      z.object({
        slug: pathKey('summer-gala'),
        cursor: z
          .string()
          .max(200)
          .optional()
          .describe("A set's `nextCursor`: that set's next page of sessions; one that is not answers 400 `invalid_cursor`"),
      }),
    )
    .output(EventPage),

  getGallery: base
    .route({
      method: 'GET',
      path: '/gallery/{sessionId}',
      operationId: 'getGallery',
      summary: "One session's gallery, photos in gallery order",
      description: 'Answers 404 `{ "error": "no such gallery" }` until the session is completed with at least one photo.',
      tags,
    })
    .errors(notFoundOf('no_such_gallery'))
    .input(z.object({ sessionId: pathKey(EXAMPLE_IDS.session) }))
    .output(Gallery),
}
