import { pub } from '../../orpc.js'
import { readEventPage, readGallery } from './gallery.service.js'

export const galleryRouter = {
  getEventPage: pub.gallery.getEventPage.handler(({ input, context }) =>
    readEventPage(context, input),
  ),
  getGallery: pub.gallery.getGallery.handler(({ input, context }) =>
    readGallery(context, input),
  ),
}
