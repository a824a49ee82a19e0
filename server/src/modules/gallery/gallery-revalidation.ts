import { Router, type Request, type Response, type NextFunction } from 'express'

import type { AppContext, Services } from '../../context.js'
import { answeredNotModified, GALLERY_KEY, readEventPageVersion, readGalleryVersion, type VersionCache } from './gallery-versions.js'
import { jsonTag } from './gallery.service.js'

type Version = readonly (string | number)[] | undefined

/**
 * `If-None-Match` on the two gallery reads, answered 304 from one small query without building the
 * body (the event page's is three queries and every photo). Without a match, or without the
 * header, the request goes on to oRPC, whose answer carries the same ETag (gallery.router.ts).
 */
export function galleryRevalidation({ orm, config }: Pick<Services, 'orm' | 'config'>, versions: VersionCache): Router {
  const revalidate =
    (key: string, readVersion: (context: Pick<AppContext, 'em'>, key: string) => Promise<Version>) =>
    async (req: Request, res: Response, next: NextFunction) => {
      const value = String(req.params[key])
      const version = () => versions.read(`${key}:${value}`, () => readVersion({ em: orm.em.fork() }, value))
      if (!GALLERY_KEY.test(value) || !(await answeredNotModified(req, res, { version, tag: (current) => jsonTag(config, current) }))) next()
    }
  const router = Router()
  router.get('/gallery/events/:slug', revalidate('slug', readEventPageVersion))
  router.get('/gallery/:sessionId', revalidate('sessionId', readGalleryVersion))
  return router
}
