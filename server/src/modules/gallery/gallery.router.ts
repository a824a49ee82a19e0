import type { AppContext } from '../../context.js'
import { pub } from '../../orpc.js'
import { downloadPhoto, downloadZip } from './gallery-files.service.js'
import { readEventPage, readGallery } from './gallery.service.js'

export const galleryRouter = {
  getEventPage: pub.gallery.getEventPage.handler(({ input, context }) =>
    readEventPage(context.db, input.slug, context.config.cdnUrl),
  ),
  getGallery: pub.gallery.getGallery.handler(({ input, context }) =>
    readGallery(context.db, input.sessionId, context.config.cdnUrl),
  ),
  downloadPhoto: pub.gallery.downloadPhoto.handler(({ input, context, signal }) =>
    downloadPhoto(fileDeps(context, signal), input.sessionId, input.photoId),
  ),
  downloadZip: pub.gallery.downloadZip.handler(({ input, context, signal }) => downloadZip(fileDeps(context, signal), input.sessionId)),
}

function fileDeps(context: AppContext, signal: AbortSignal | undefined) {
  return {
    db: context.db,
    storage: context.storage,
    now: context.now(),
    signal: signal ?? new AbortController().signal,
    onError: context.logError,
  }
}
