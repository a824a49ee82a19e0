import { pub } from '../../orpc.js'
import { trackBeacon } from './beacon.service.js'

export const trackingRouter = {
  track: pub.tracking.track.handler(({ input, context }) => trackBeacon(context, input.body)),
}
