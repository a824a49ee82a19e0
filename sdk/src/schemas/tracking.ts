import { z } from 'zod'

import { Id } from './common.js'
import { EXAMPLE_IDS } from './examples.js'

export const SHARE_CHANNELS = ['facebook', 'instagram', 'tiktok', 'copy', 'native'] as const

/** A view of a session's gallery or of an event's page: exactly one of the two ids. */
export const ViewBeacon = z.union([
  z.strictObject({ kind: z.literal('view'), sessionId: Id }),
  z.strictObject({ kind: z.literal('view'), eventId: Id }),
])

export const ShareBeacon = z.strictObject({ kind: z.literal('share'), sessionId: Id, channel: z.enum(SHARE_CHANNELS) })

export const TrackBeacon = z.union([ViewBeacon, ShareBeacon]).meta({
  examples: [
    { kind: 'view', sessionId: EXAMPLE_IDS.session },
    { kind: 'view', eventId: EXAMPLE_IDS.event },
    { kind: 'share', sessionId: EXAMPLE_IDS.session, channel: 'instagram' },
  ],
})
