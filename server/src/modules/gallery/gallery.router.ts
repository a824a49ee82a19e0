import { pub } from '../../orpc.js'
import { readEventPage, readGallery } from './gallery.service.js'

export const galleryRouter = {
  getEventPage: pub.gallery.getEventPage.handler(({ input: { params }, context }) =>
    readEventPage(context.em, params.slug, context.config.cdnUrl),
  ),
  getGallery: pub.gallery.getGallery.handler(({ input: { params }, context }) =>
    readGallery(context.em, params.sessionId, context.config.cdnUrl),
  ),
}
