import type { AppContext } from '../../context.js'
import { api } from '../../orpc.js'
import { GALLERY_CACHE_CONTROL } from './gallery-versions.js'
import { readEventPage, readGallery } from './gallery.service.js'

/**
 * The body, with the validator and caching a CDN revalidates it by. Where the read succeeds, Express
 * answers first (gallery-reads.ts: 304s, and the JSON without oRPC's serializer); these answer the rest.
 */
function cacheable<T>({ resHeaders }: AppContext, { body, etag, cacheControl }: { body: T; etag: string; cacheControl?: string }): T {
  resHeaders?.set('ETag', etag)
  resHeaders?.set('Cache-Control', cacheControl ?? GALLERY_CACHE_CONTROL)
  return body
}

export const galleryRouter = {
  getEventPage: api.gallery.getEventPage.handler(async ({ input, context }) => cacheable(context, await readEventPage(context, input))),
  getGallery: api.gallery.getGallery.handler(async ({ input, context }) => cacheable(context, await readGallery(context, input))),
}
