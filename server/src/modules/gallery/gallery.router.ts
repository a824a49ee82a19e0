import { pub } from '../../orpc.js'
import { readEventPage, readGallery } from './gallery.service.js'

export const galleryRouter = {
  getEventPage: pub.gallery.getEventPage.handler(({ input, context }) =>
    readEventPage(context.db, input.slug, context.config.cdnUrl),
  ),
  getGallery: pub.gallery.getGallery.handler(({ input, context }) =>
    readGallery(context.db, input.sessionId, context.config.cdnUrl),
  ),
}
