import { resendGalleryLinks } from '../messages/index.js'
import { staffApi } from '../staff/index.js'
import { sessionStats } from '../tracking/index.js'
import { cancelStaffSession, deleteStaffSession, getStaffSession, listStaffSessions, showGuestContact } from './staff-sessions.service.js'

const sessions = staffApi.sessions

export const staffSessionsRouter = {
  list: sessions.list.handler(({ input, context }) => listStaffSessions(context, input)),
  get: sessions.get.handler(({ input, context }) => getStaffSession(context, input)),
  guestContact: sessions.guestContact.handler(({ input, context }) => showGuestContact(context, input)),
  stats: sessions.stats.handler(({ input, context }) => sessionStats(context, input)),
  resend: sessions.resend.handler(({ input, context }) => resendGalleryLinks(context, input.params)),
  cancel: sessions.cancel.handler(({ input, context }) => cancelStaffSession(context, input.params)),
  delete: sessions.delete.handler(({ input, context }) => deleteStaffSession(context, input.params)),
}
