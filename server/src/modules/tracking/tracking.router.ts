import { api } from '../../orpc.js'
import { trackBeacon } from './beacon.service.js'

export const trackingRouter = {
  track: api.tracking.track.handler(({ input, context }) => trackBeacon(context, input.body)),
}
