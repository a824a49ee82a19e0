import { pub } from '../../orpc.js'
import { loadKioskContext, registerGuests } from './kiosk.service.js'

export const kioskRouter = {
  getContext: pub.kiosk.getContext.handler(({ input, context }) => loadKioskContext(context.em, input.eventSlug, input.setSlug)),
  registerGuests: pub.kiosk.registerGuests.handler(({ input: { params, body }, context }) =>
    registerGuests(context.em, params.setId, body.guests, context.now()),
  ),
}
