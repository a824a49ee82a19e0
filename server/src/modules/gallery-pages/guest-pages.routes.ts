import type { RequestHandler } from 'express'

import { GALLERY_PAGES_PATH } from '../../config.js'
import type { Services } from '../../context.js'
import { under } from '../../http/edge.js'
import type { VersionCache } from '../gallery/index.js'
import { galleryPageRoutes } from './gallery-pages.routes.js'
import { robotsTxt } from './robots.js'

/** As Express matches `/robots.txt`: in any case, with or without a trailing slash. */
const ROBOTS_PATH = /^\/robots\.txt\/?$/i

/** The guests' pages, mounted from here: the galleries' HTML under GALLERY_PAGES_PATH (`/g`), and `/robots.txt`. */
export function guestPages(
  services: Pick<Services, 'config' | 'orm' | 'now' | 'logger' | 'metrics'>,
  versions: VersionCache,
): RequestHandler {
  const pages = under(GALLERY_PAGES_PATH, galleryPageRoutes(services, versions))
  return (req, res, next) =>
    (req.method === 'GET' || req.method === 'HEAD') && ROBOTS_PATH.test(req.path) ? robotsTxt(req, res, next) : pages(req, res, next)
}
