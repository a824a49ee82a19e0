import { Readable } from 'node:stream'

import type { AppContext } from '../../context.js'
import { pub } from '../../orpc.js'
import { downloadPhoto, downloadZip, type BytesAnswer } from './gallery-files.service.js'
import { readEventPage, readGallery } from './gallery.service.js'

export const galleryRouter = {
  getEventPage: pub.gallery.getEventPage.handler(({ input, context }) =>
    readEventPage(context.db, input.slug, context.config.cdnUrl),
  ),
  getGallery: pub.gallery.getGallery.handler(({ input, context }) =>
    readGallery(context.db, input.sessionId, context.config.cdnUrl),
  ),
  // Over HTTP these two are answered by app.ts straight from the Node streams (bytes-routes.ts);
  // the procedures serve calls made through the router itself.
  downloadPhoto: pub.gallery.downloadPhoto.handler(async ({ input, context, signal }) =>
    asWeb(await downloadPhoto(fileDeps(context, signal), input.sessionId, input.photoId)),
  ),
  downloadZip: pub.gallery.downloadZip.handler(async ({ input, context, signal }) =>
    asWeb(await downloadZip(fileDeps(context, signal), input.sessionId)),
  ),
}

async function asWeb({ headers, open }: BytesAnswer) {
  const { body } = await open()
  return { headers, body: Readable.toWeb(body) as ReadableStream<Uint8Array> }
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
