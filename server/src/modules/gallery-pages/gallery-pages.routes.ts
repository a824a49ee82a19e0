import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

import compression from 'compression'
import { Router, type ErrorRequestHandler, type Request, type Response } from 'express'

import { GALLERY_PAGES_PATH } from '../../config.js'
import type { Services } from '../../context.js'
import { pageSecurityPolicy } from '../../http/security-headers.js'
import { noteOutage, outageOf, RETRY_AFTER_SECONDS } from '../../outages.js'
import { AppError } from '../../errors.js'
import {
  answeredNotModified,
  cacheControlOf,
  GALLERY_KEY,
  readEventPageVersion,
  readGalleryVersion,
  readPublicEventPage,
  type VersionCache,
  versionTag,
} from '../gallery/index.js'
import { eventPage, galleryPage, noticePage, waitingPage, type PageLinks } from './gallery-pages.html.js'
import { photoStates, readGalleryPage } from './gallery-pages.service.js'

/** The pages' files, named by their content so that they can be cached for good. */
function loadAsset(file: string, type: string) {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url))
  const [name, extension] = file.split('.') as [string, string]
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  return { path: `${GALLERY_PAGES_PATH}/assets/${name}.${hash}.${extension}`, type, body }
}

/**
 * The guest's side, served by the service itself: a session's gallery at `/g/<session id>` (where
 * the default gallery link points), the page shown while its photos are on their way, and a public
 * event's page at `/g/events/<slug>`. Server-rendered from the JSON routes' own readers; the script
 * only adds beacons, sharing, the viewer and the wait. An operator with a front end of their own
 * points `GALLERY_URL` at it instead.
 */
export function galleryPageRoutes(
  services: Pick<Services, 'config' | 'orm' | 'now' | 'logger' | 'metrics'>,
  versions: VersionCache,
): Router {
  const { config, orm, now, logger } = services
  const assets = [
    loadAsset('gallery.css', 'text/css; charset=utf-8'),
    loadAsset('gallery.js', 'text/javascript; charset=utf-8'),
    // The link preview until a gallery's own is made: 1200×630, 24 KB (never a photo's full-size copy).
    loadAsset('card.jpg', 'image/jpeg'),
  ]
  const [stylesheet, script, card] = assets as [(typeof assets)[0], (typeof assets)[0], (typeof assets)[0]]
  const base = `${config.publicUrl}${GALLERY_PAGES_PATH}`
  const links: PageLinks = {
    stylesheet: stylesheet.path,
    script: script.path,
    card: `${config.publicUrl}${card.path}`,
    sessionPage: (sessionId) => `${base}/${sessionId}`,
    eventPage: (slug, cursor) => `${base}/events/${encodeURIComponent(slug)}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
  }
  const policy = pageSecurityPolicy(config.publicUrl, { imageOrigins: [new URL(config.cdnUrl).origin] })
  const send = (res: Response, status: number, cache: string, html: string) =>
    void res.status(status).setHeader('Content-Security-Policy', policy).setHeader('Cache-Control', cache).type('html').send(html)
  // A page also depends on its files and on the addresses it names.
  const pageTag = (version: readonly (string | number)[]) =>
    versionTag('page', stylesheet.path, script.path, config.publicUrl, config.cdnUrl, ...version)
  const sendCacheable = (res: Response, version: readonly (string | number)[], html: string) => {
    res.setHeader('ETag', pageTag(version))
    send(res, 200, cacheControlOf(version), html)
  }
  const notModified = (req: Request, res: Response, version: () => Promise<readonly (string | number)[] | undefined>) =>
    answeredNotModified(req, res, { version, tag: pageTag })
  const context = () => ({ config, now, em: orm.em.fork() })
  /** A cursor that is not one of this event's names no page: the not-found page, as any wrong link. */
  const noSuchEventPage = (error: unknown) => {
    if (error instanceof AppError && error.code === 'invalid_cursor') return undefined
    throw error
  }

  const router = Router()
  router.use(GALLERY_PAGES_PATH, compression())
  for (const asset of assets) {
    router.get(
      asset.path,
      (_req, res) => void res.type(asset.type).setHeader('Cache-Control', 'public, max-age=31536000, immutable').send(asset.body),
    )
  }
  router.get(`${GALLERY_PAGES_PATH}/events/:slug`, async (req, res) => {
    const { slug } = req.params
    // A set's next page: `?cursor=`, a set's `nextCursor`. Other parameters (a messenger's `fbclid`) change nothing.
    const given = req.query.cursor
    if (given !== undefined && (typeof given !== 'string' || given.length > 200))
      return send(res, 404, 'no-store', noticePage(links, 'event'))
    const cursor = given
    const version = async () => {
      const current = await versions.read(`slug:${slug}`, () => readEventPageVersion(context(), slug))
      return current && (cursor === undefined ? current : [...current, cursor])
    }
    if (GALLERY_KEY.test(slug) && (await notModified(req, res, version))) return
    const read = GALLERY_KEY.test(slug) ? await readPublicEventPage(context(), slug, cursor).catch(noSuchEventPage) : undefined
    // A next page names one of the event's sets: else it leads nowhere.
    if (!read || (cursor !== undefined && read.page.sets.length === 0)) return send(res, 404, 'no-store', noticePage(links, 'event'))
    sendCacheable(res, read.version, eventPage(read.page, links, { cursor, states: photoStates(read.imageStatuses) }))
  })
  router.get(`${GALLERY_PAGES_PATH}/:sessionId`, async (req, res) => {
    const { sessionId } = req.params
    if (
      GALLERY_KEY.test(sessionId) &&
      (await notModified(req, res, () => versions.read(`sessionId:${sessionId}`, () => readGalleryVersion(context(), sessionId))))
    )
      return
    const page = GALLERY_KEY.test(sessionId) ? await readGalleryPage(context(), sessionId) : { kind: 'missing' as const }
    if (page.kind === 'live') return sendCacheable(res, page.version, galleryPage(page, links))
    // The wait is asked again every few seconds: never from a cache.
    if (page.kind === 'waiting')
      return send(res, 200, 'no-store', waitingPage({ sessionId, eventName: page.eventName, branding: page.branding }, links))
    send(res, 404, 'no-store', noticePage(links, page.kind === 'ended' ? 'ended' : 'gallery'))
  })
  // Any other page under the path (a link cut short or with a stray segment) is a page too.
  const noSuchPage = (_req: Request, res: Response) => send(res, 404, 'no-store', noticePage(links, 'gallery'))
  // Two routes, not one with both paths: each names its own pattern in the request log.
  router.get(GALLERY_PAGES_PATH, noSuchPage)
  router.get(`${GALLERY_PAGES_PATH}/{*rest}`, noSuchPage)
  // A page that could not be read is still answered as a page (a guest opened a link): 503 while the
  // database or storage is away, with a Retry-After; 500 for a fault of ours.
  const failed: ErrorRequestHandler = (error, _req, res, _next) => {
    if (res.headersSent) return void res.destroy()
    const outage = outageOf(error)
    if (outage) {
      noteOutage(outage, error, services)
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS))
    } else logger.error('page failed', error)
    send(res, outage ? 503 : 500, 'no-store', noticePage(links, 'unavailable'))
  }
  router.use(GALLERY_PAGES_PATH, failed)
  return router
}
