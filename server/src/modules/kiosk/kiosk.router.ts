import { api } from '../../orpc.js'
import { loadKioskContext, registerGuests } from './kiosk.service.js'

export const kioskRouter = {
  getContext: api.kiosk.getContext.handler(({ input, context }) => loadKioskContext(context, input)),
  registerGuests: api.kiosk.registerGuests.handler(({ input, context }) =>
    registerGuests(context, { setId: input.params.setId, ...input.body }),
  ),
}
