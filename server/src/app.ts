import type { EntityManager, MikroORM } from '@mikro-orm/postgresql'
import { OpenAPIHandler } from '@orpc/openapi/node'
import { ORPCError } from '@orpc/server'
import { contract } from '@photobooth/sdk/contract'
import { CONTACT_LIMITS, PathKey } from '@photobooth/sdk/schemas'
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express'
import type { RedisClientType } from 'redis'

import type { Config } from './config.js'
import type { AppContext } from './context.js'
import type { PoolSql } from './db/pool-sql.js'
import { AppError, encodeErrorBody, INTERNAL_ERROR_BODY } from './errors.js'
import { badRequest, limitBody } from './http/body-limit.js'
import { securityHeaders } from './http/security-headers.js'
import type { Logger } from './logger.js'
import { boothAuthentication } from './modules/booth-keys/booth-auth.middleware.js'
import type { Caller } from './modules/booth-keys/booth-keys.service.js'
import type { ContactLabels } from './modules/contact/contact-labels.js'
import type { ContactMailer } from './modules/contact/contact.service.js'
import { bytesRoute } from './modules/gallery/bytes-routes.js'
import { downloadPhoto, downloadZip } from './modules/gallery/gallery-files.service.js'
import { createRateLimiter } from './modules/rate-limits/rate-limits.js'
import { photoBytesRoutes } from './modules/storage/photo-bytes.routes.js'
import type { PhotoStorage } from './modules/storage/storage.js'
import type { OpenApiDocument } from './openapi.js'
import { router } from './router.js'

/** JSON bodies of the public routes are small: 12 guests fit in a few kilobytes. */
export const MAX_BODY_BYTES = 64 * 1024

export type AppDependencies = {
  config: Config
  orm: MikroORM
  db: PoolSql
  logger: Logger
  /** Built beforehand (it is async) so that the app itself is ready synchronously. */
  openApiDocument: OpenApiDocument
  storage?: PhotoStorage
  now?: () => Date
  /** Tells the delivery dispatcher that messages were queued. */
  wakeDelivery?: () => void
  /** Shared rate-limit counts; absent: each instance counts its own. */
  redis?: RedisClientType
  contactLabels: ContactLabels
  contactMailer?: ContactMailer
}

export function createApp({ config, orm, db, logger, openApiDocument, storage, now = () => new Date(), wakeDelivery = () => {}, redis, contactLabels, contactMailer }: AppDependencies): Express {
  // Served as committed, but pointing at this instance.
  const servedDocument = JSON.stringify({ ...openApiDocument, servers: [{ url: config.publicUrl }] })
  // Every error answer passes here, so faults are logged here, at no cost to answers that succeed.
  const customErrorResponseBodyEncoder = (error: ORPCError<string, unknown>) => {
    // A 503 of the domain (storage or mail not configured) is an answer, not a fault to investigate.
    if (error.status >= 500 && !(error instanceof AppError && error.status === 503)) logger.error('request failed', error.cause ?? error)
    return encodeErrorBody(error)
  }
  const handler = new OpenAPIHandler(router, { customErrorResponseBodyEncoder })

  const logError = (error: unknown) => logger.error('response failed after it started', error)
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use(canonicalPath)
  // First, so that every answer carries the security headers, Express's own 404s and 500s included.
  app.use(securityHeaders)
  // No route answers OPTIONS (no cross-origin caller needs a preflight): the same 404 everywhere,
  // rather than Express's automatic answer on the routers that have one.
  app.options('/{*path}', notFound)

  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(servedDocument)
  })

  // Rate limits (spec, section 8): per route, keyed on the client IP; /booth is not limited.
  const limit = createRateLimiter(config.rateLimits, redis)
  app.post(expressPath(contract.kiosk.registerGuests), limit('register', 60))
  app.post(expressPath(contract.tracking.track), limit('track', 60), rawBody(TRACK_MAX_BYTES, () => badRequest('bad body')))
  app.post(expressPath(contract.contact.submit), limit('contact', 60), rawBody(CONTACT_LIMITS.bodyBytes, messageTooLong))
  // The gallery's byte routes stream from Node streams directly; their 404 is plain text.
  const fileDeps = () => ({ db, storage, now: now(), onError: logError })
  // A segment that cannot be a key names nothing: the plain 404, as for any unknown id.
  const idOf = (value: unknown) => (PathKey.safeParse(value).success ? (value as string) : '')
  app.get(
    expressPath(contract.gallery.downloadPhoto),
    bytesRoute((req, deps) => downloadPhoto(deps, idOf(req.params.sessionId), idOf(req.params.photoId)), fileDeps),
  )
  app.get(
    expressPath(contract.gallery.downloadZip),
    limit('zip', 60),
    bytesRoute((req, deps) => downloadZip(deps, idOf(req.params.sessionId)), fileDeps),
  )
  app.post('/api/auth/sign-in/*rest', limit('sign-in', 10))

  app.use('/photos', photoBytesRoutes(config, storage, db, now))
  app.use('/booth', boothAuthentication(orm, now))

  const serveApi: RequestHandler = async (req, res, next) => {
    if (!BODYLESS_METHODS.has(req.method)) limitBody(req, res, MAX_BODY_BYTES)
    // oRPC routes no HEAD: answered as the GET, whose body Node leaves out of a HEAD's answer.
    if (req.method === 'HEAD') req.method = 'GET'
    let em: EntityManager | undefined
    const context: AppContext = {
      config,
      now,
      logError,
      wakeDelivery,
      contactLabels,
      contactMailer,
      storage,
      db,
      caller: res.locals.caller as Caller | undefined,
      // Forked on first use: the public reads never need one.
      get em() {
        return (em ??= orm.em.fork())
      },
    }
    try {
      const { matched } = await handler.handle(req, res, { context })
      if (!matched) next()
    } catch (error) {
      next(error)
    }
  }
  app.use(serveApi)

  app.use(notFound)
  const lastResort: ErrorRequestHandler = (error, _req, res, _next) => {
    if (res.headersSent) return void res.destroy()
    // Express's own refusals (a malformed %-escape in the path) carry a 4xx status: bad input.
    const status = (error as { status?: unknown }).status
    if (typeof status === 'number' && status >= 400 && status < 500) return void res.status(status).json({ error: 'Malformed request' })
    logger.error('unhandled error', error)
    res.status(500).json(INTERNAL_ERROR_BODY)
  }
  app.use(lastResort)
  return app
}

/**
 * Express matches routes on the raw path, while oRPC reads the path as a WHATWG URL, which resolves
 * `/./`, `/x/../`, their `%2e` spellings and backslashes, and then skips empty segments. Rewritten first to what oRPC will see, so
 * that no spelling of a path reaches a procedure past the rate limit, body limit or authentication
 * mounted on that path (`POST /./track` is `POST /track` to every layer).
 */
const canonicalPath: RequestHandler = (req, _res, next) => {
  const raw = req.url
  let canonical: string | undefined
  try {
    // Built as oRPC builds it (standard-server-node), so that `//x` stays a path, not a host.
    const url = new URL(`http://localhost${raw.startsWith('/') ? '' : '/'}${raw}`)
    // And empty segments: oRPC's router skips them (`/track//` is `/track`), Express's does not.
    const pathname = url.pathname.replace(/\/{2,}/g, '/').replace(/(?<=.)\/$/, '') || '/'
    canonical = pathname.split('/').map(decodableSegment).join('/') + url.search
  } catch {
    // Not a URL at all: left to the routes, which will not match it.
  }
  if (canonical !== undefined && canonical !== raw) req.url = req.originalUrl = canonical
  next()
}

/**
 * A segment with a malformed %-escape (`%ff`, `%e0%a4%a`) names nothing, like any unknown id. Its `%`
 * are escaped so that it decodes to itself: Express would otherwise refuse the whole path with its own
 * 400, and the byte routes must answer their plain 404 (`no such gallery` elsewhere).
 */
function decodableSegment(segment: string): string {
  try {
    decodeURIComponent(segment)
    return segment
  } catch {
    return segment.replace(/%/g, '%25')
  }
}

/** A contract route's path in Express's syntax (`{id}` → `:id`): declared once, in the contract. */
const expressPath = (procedure: { '~orpc': { route: { path?: string } } }) => procedure['~orpc'].route.path!.replace(/\{(\w+)\}/g, ':$1')

const notFound: RequestHandler = (_req, res) => {
  res.status(404).json({ error: 'Not Found' })
}

/** A beacon is a few dozen bytes. */
const TRACK_MAX_BYTES = 4 * 1024

const messageTooLong = () => new ORPCError('PAYLOAD_TOO_LARGE', { status: 413, message: 'Message too long' })

/**
 * For the routes that answer their own words for any bad body: the body reaches the procedure as
 * text, whatever the declared type (a beacon sends text/plain; malformed JSON must not become oRPC's
 * generic message), and is cut at `maxBytes` on its raw bytes, with or without a Content-Length.
 */
function rawBody(maxBytes: number, tooLarge: () => ORPCError<string, unknown>): RequestHandler {
  return (req, res, next) => {
    req.headers['content-type'] = 'text/plain; charset=utf-8'
    limitBody(req, res, maxBytes, tooLarge)
    next()
  }
}

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
