import { Router, type Request, type Response, type NextFunction } from 'express'

import type { AppContext, Services } from '../../context.js'
import { GALLERY_CACHE_CONTROL, matchesAny, readEventPageVersion, readGalleryVersion } from './gallery-versions.js'
import { jsonTag } from './gallery.service.js'

/** Ids and slugs as the contract accepts them; anything else goes on to its 400 or 404. */
const KEY = /^[A-Za-z0-9_-]{1,64}$/

type Version = readonly (string | number)[] | undefined

/**
 * `If-None-Match` on the two gallery reads, answered 304 from one small query without building the
 * body (the event page's is three queries and every photo). Without a match, or without the
 * header, the request goes on to oRPC, whose answer carries the same ETag (gallery.router.ts).
 */
export function galleryRevalidation({ orm, config }: Pick<Services, 'orm' | 'config'>): Router {
  const revalidate =
    (key: string, readVersion: (context: Pick<AppContext, 'em'>, key: string) => Promise<Version>) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const ifNoneMatch = req.headers['if-none-match']
      const value = String(req.params[key])
      if (!ifNoneMatch || !KEY.test(value)) return next()
      const version = await readVersion({ em: orm.em.fork() }, value)
      if (!version) return next()
      const etag = jsonTag(config, version)
      if (!matchesAny(ifNoneMatch, etag)) return next()
      res.status(304).setHeader('ETag', etag).setHeader('Cache-Control', GALLERY_CACHE_CONTROL).end()
    }
  const router = Router()
  router.get('/gallery/events/:slug', revalidate('slug', readEventPageVersion))
  router.get('/gallery/:sessionId', revalidate('sessionId', readGalleryVersion))
  return router
}
