import { Router } from 'express'

import { GALLERY_PAGES_PATH } from '../../config.js'
import type { Services } from '../../context.js'
import { under } from '../../http/edge.js'
import type { VersionCache } from '../gallery/index.js'
import { galleryPageRoutes } from './gallery-pages.routes.js'
import { robotsTxt } from './robots.js'

/** The guests' pages, mounted from here: the galleries' HTML under GALLERY_PAGES_PATH (`/g`), and `/robots.txt`. */
export function guestPages(services: Pick<Services, 'config' | 'orm' | 'now' | 'logger' | 'metrics'>, versions: VersionCache): Router {
  const router = Router()
  router.use(under(GALLERY_PAGES_PATH, galleryPageRoutes(services, versions)))
  router.get('/robots.txt', robotsTxt)
  return router
}
