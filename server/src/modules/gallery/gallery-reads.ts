import { Router, type Request, type Response, type NextFunction } from 'express'

import type { AppContext, Services } from '../../context.js'
import {
  answeredNotModified,
  GALLERY_CACHE_CONTROL,
  GALLERY_KEY,
  readEventPageVersion,
  readGalleryVersion,
  type VersionCache,
} from './gallery-versions.js'
import { jsonTag, readEventPage, readGallery } from './gallery.service.js'
import { outageOf } from '../../outages.js'

type Version = readonly (string | number)[] | undefined
type Read = (context: Pick<AppContext, 'em' | 'config'>, key: string) => Promise<{ body: unknown; etag: string; cacheControl?: string }>

/**
 * The two gallery reads, where they succeed, answered by Express: `If-None-Match` with a 304 from one
 * small query without building the body, and otherwise the JSON as oRPC would send it (the same
 * reader, ETag and caching; gallery.router.ts), without oRPC's serializer, which walks every object
 * of an answer already made of plain JSON: an event page holds 2,400 photos and 7,200 copies, and
 * the walk was a third of its cost (bench/README.md, `gallery`). Anything else (a key that names
 * nothing, an unknown or private gallery, a database that fails) goes on to oRPC, which answers it as
 * the contract says.
 */
export function galleryReads({ orm, config }: Pick<Services, 'orm' | 'config'>, versions: VersionCache): Router {
  const answer =
    (key: string, readVersion: (context: Pick<AppContext, 'em'>, key: string) => Promise<Version>, read: Read) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const value = String(req.params[key])
      // A set's next page (`?cursor=`) is oRPC's to answer: it is read, and its query validated, as the contract says.
      if (!GALLERY_KEY.test(value) || Object.keys(req.query).length > 0) return next()
      try {
        const version = () => versions.read(`${key}:${value}`, () => readVersion({ em: orm.em.fork() }, value))
        if (await answeredNotModified(req, res, { version, tag: (current) => jsonTag(config, current) })) return
        const found = await read({ em: orm.em.fork(), config }, value)
        const body = JSON.stringify(found.body)
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          etag: found.etag,
          'cache-control': found.cacheControl ?? GALLERY_CACHE_CONTROL,
        })
        res.end(body)
      } catch (error) {
        // A database that is away is answered now (503), not asked again by oRPC, which would double the wait.
        if (outageOf(error)) return next(error)
        // "No such gallery", or a fault: oRPC answers it as the contract says (and logs a fault).
        next()
      }
    }
  const router = Router()
  router.get(
    '/gallery/events/:slug',
    answer('slug', readEventPageVersion, (context, slug) => readEventPage(context, { slug })),
  )
  router.get(
    '/gallery/:sessionId',
    answer('sessionId', readGalleryVersion, (context, sessionId) => readGallery(context, { sessionId })),
  )
  return router
}
