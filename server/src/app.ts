import type { EntityManager } from '@mikro-orm/postgresql'
import { StandardOpenAPIHandler } from '@orpc/openapi/standard'
import type { ORPCError } from '@orpc/server'
import { ResponseHeadersPlugin } from '@orpc/server/plugins'
import { sendStandardResponse, toNodeHttpBody, toNodeHttpHeaders, toStandardLazyRequest } from '@orpc/standard-server-node'
import { genericErrorCode } from '@photobooth/sdk/contract'
import express, { Router, type ErrorRequestHandler, type Express, type RequestHandler, type Response } from 'express'

import { KIOSK_APP_PATH } from './config.js'
import type { AppContext, Services } from './context.js'
import { AppError, encodeErrorBody, errorBody, INTERNAL_ERROR_BODY } from './errors.js'
import { noteOutage, outageOf, RETRY_AFTER_SECONDS, unavailableBody, unavailableError } from './outages.js'
import { NOT_FOUND_BODY, sendError } from './http/answers.js'
import { limitBody } from './http/body-limit.js'
import { canonicalPath } from './http/canonical-path.js'
import { edgePolicies, under } from './http/edge.js'
import { metricsRoute } from './http/metrics-route.js'
import { crossOrigin, staffCrossOrigin } from './http/cross-origin.js'
import { requestId } from './http/request-id.js'
import { requestLog } from './http/request-log.js'
import { securityHeaders } from './http/security-headers.js'
import { staticApps } from './http/static-apps.js'
import { accountAuditTrail, auditSignIn, auditTrail, noteCreations } from './modules/audit/index.js'
import { boothAuthentication, boothOf } from './modules/booth-keys/index.js'
import { docsRoutes } from './modules/docs/index.js'
import { guestsCsvRoutes } from './modules/exports/index.js'
import { KIOSK_APP } from './modules/kiosk/index.js'
import { galleryRoutes, VersionCache } from './modules/gallery/index.js'
import { eventLogoRoutes } from './modules/events/index.js'
import { guestPages } from './modules/gallery-pages/index.js'
import { idempotencyKeys, storeIdempotentAnswer } from './modules/idempotency/index.js'
import { createRateLimiter } from './modules/rate-limits/index.js'
import { authRoutes, checkOrigin, type SignInRecorder, staffAuthentication, staffGates, staffOf } from './modules/staff/index.js'
import { photoBytesRoutes } from './modules/photo-bytes/index.js'
import { router } from './router.js'

/** JSON bodies of the public routes are small: 12 guests fit in a few kilobytes. */
const MAX_BODY_BYTES = 64 * 1024

/**
 * The HTTP app, a short list run top to bottom; each layer answers a request or passes it on. The
 * order, once:
 * 1. The edge, for every request: its path made canonical (every later layer sees the path oRPC
 *    will), then the security headers (first of all answers: Express's own 404s and 500s carry them
 *    too), a request id and the request's log line, CORS, and the one 404 for OPTIONS.
 * 2. What is not the API (no contract entry): metrics, the document and its docs, the guests' pages,
 *    the web apps. Before the policies: none of them has one.
 * 3. The contract's edge policies (rate limits, media types, body limits), before anything reads a
 *    body, whoever answers the route (http/edge.ts).
 * 4. The public routes of the API that Express answers, each area from its module's front door, each
 *    for the reason docs/architecture.md gives ("What Express answers"): Better Auth's sign-in, the
 *    gallery (its reads and files), the photos' and logos' bytes.
 * 5. Who calls: a booth's key for /booth, a staff session (with its audit trail, role gates and
 *    Origin) for /staff; then, for an authenticated change, the gallery versions it moves and its
 *    Idempotency-Key. A stranger neither empties the cache nor holds a key.
 * 6. The staff's guest CSV (Express, once authenticated), then every other route: oRPC's handler.
 * 7. The JSON 404 of any path nobody answered; the last resort for what was thrown.
 */
export function createApp(services: Services): Express {
  const limit = createRateLimiter(services.config.rateLimits, services.rateLimitCounts, services.metrics)
  const versions = new VersionCache(services.now)
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  edge(app, services) // 1
  outsideTheApi(app, services, versions) // 2
  app.use(edgePolicies(limit, services.openApiDocument)) // 3
  app.use(under('/api/auth', staffSignIn(services, limit))) // 4
  app.use(under('/gallery', galleryRoutes(services, versions)))
  app.use('/photos', photoBytesRoutes(services))
  app.use('/brand', eventLogoRoutes(services))
  callers(app, services, versions) // 5
  app.use(under('/staff', guestsCsvRoutes(services))) // 6
  app.use(serveApi(services))
  app.use(notFound) // 7
  app.use(lastResort(services))
  return app
}

/**
 * Every request's first layers (1 above). The groups register on the app itself, not in a router of
 * their own: a nested router is a few more microseconds on every request, the gallery's too.
 */
function edge(router: Express, services: Services): void {
  router.use(canonicalPath, securityHeaders, requestId(services.config.requestIdHeader), requestLog(services.logger, services.metrics))
  // The public routes' CORS for CORS_ORIGINS (none by default), their preflights included.
  if (services.config.corsOrigins.length > 0) router.use(crossOrigin(services.config.corsOrigins))
  // The staff routes' CORS, with credentials, for the dashboards of TRUSTED_ORIGINS (none but the service's own by default).
  const dashboards = services.config.staffAuth.trustedOrigins.filter((origin) => origin !== new URL(services.config.publicUrl).origin)
  if (dashboards.length > 0) router.use(staffCrossOrigin(dashboards))
  // No other route answers OPTIONS: the same 404 everywhere, rather than Express's automatic answer
  // on the routers that have one.
  router.use((req, res, next) => (req.method === 'OPTIONS' ? notFound(req, res, next) : next()))
}

/** What has no contract entry (2 above): metrics, the document and its docs, the guests' pages, the web apps of apps/*. */
function outsideTheApi(router: Express, services: Services, versions: VersionCache): void {
  if (services.config.metricsToken) router.use(metricsRoute(services.config.metricsToken, services.metrics))
  router.get('/openapi.json', openApiDocument(services))
  router.use(under('/docs', docsRoutes(services)))
  router.use(guestPages(services, versions))
  // The kiosk at KIOSK_URL's default, the console at /console, from their builds.
  router.use(under(KIOSK_APP_PATH, staticApps(services, [KIOSK_APP])))
  router.use(under('/console', staticApps(services, [{ path: '/console', package: '@photobooth/console' }])))
}

/**
 * Better Auth's sign-in routes (contract: `staff.auth`), through its own handler (auth.routes.ts):
 * signing in rate limited, and a member's own account changes and sign-ins in the audit trail
 * (wired here: staff does not import audit).
 */
function staffSignIn(services: Services, limit: ReturnType<typeof createRateLimiter>): Router {
  const router = Router()
  router.post('/api/auth/sign-in/*rest', limit('sign-in', 10))
  router.use(accountAuditTrail(services))
  const recordSignIn: SignInRecorder = (req, res, member, action, targets) => auditSignIn(services, req, res, member, action, targets)
  router.use(authRoutes({ ...services, recordSignIn }))
  return router
}

/** Who calls, and what an authenticated change does before it is answered (5 above). */
function callers(router: Express, services: Services, versions: VersionCache): void {
  router.use('/booth', boothAuthentication(services))
  // The audit trail records what a member asked, refusals of an untrusted origin included.
  router.use(
    '/staff',
    staffAuthentication(services),
    auditTrail(services),
    staffGates,
    checkOrigin(services.config.staffAuth.trustedOrigins),
  )
  // The booth's and staff's changes are what move a gallery's version (gallery-versions.ts).
  router.use(['/booth', '/staff'], versions.dropOnChange)
  // Idempotency-Key on the kiosk's, booth's and staff's changes: after authentication (a key is its
  // caller's), before oRPC, which stores the answer through storeIdempotentAnswer.
  router.use(idempotencyKeys(services, { maxBodyBytes: MAX_BODY_BYTES }))
}

/** The committed document, served pointing at this instance. */
function openApiDocument({ openApiDocument, config }: Services): RequestHandler {
  const served = JSON.stringify({ ...openApiDocument, servers: [{ url: config.publicUrl }] })
  return (_req, res) => void res.type('application/json').send(served)
}

/** Every route of the served contract (`servedContract`: all but what Express answers, above), through oRPC's OpenAPI handler. */
function serveApi(services: Services): RequestHandler {
  // Every error answer passes here, so faults are logged here, at no cost to answers that succeed.
  const customErrorResponseBodyEncoder = (error: ORPCError<string, unknown>) => {
    // A 503 of the domain (storage or mail not configured) is an answer, not a fault to investigate.
    if (error.status >= 500 && !(error instanceof AppError && error.status === 503))
      services.logger.error('request failed', error.cause ?? error)
    return encodeErrorBody(error)
  }
  // A procedure that met a dependency's outage answers 503 with what is unavailable (outages.ts).
  const answerOutages = async ({ next, context }: { next: () => Promise<unknown>; context: AppContext }) => {
    try {
      return await next()
    } catch (error) {
      const outage = outageOf(error)
      if (!outage) throw error
      noteOutage(outage, error, services)
      context.resHeaders?.set('Retry-After', String(RETRY_AFTER_SECONDS))
      throw unavailableError(outage, error)
    }
  }
  const handler = new StandardOpenAPIHandler(router, {
    customErrorResponseBodyEncoder,
    rootInterceptors: [storeIdempotentAnswer],
    clientInterceptors: [answerOutages, noteCreations],
    plugins: [new ResponseHeadersPlugin()],
  })
  return async (req, res, next) => {
    if (!BODYLESS_METHODS.has(req.method)) limitBody(req, res, MAX_BODY_BYTES)
    // oRPC routes no HEAD: answered as the GET, whose body Node leaves out of a HEAD's answer.
    if (req.method === 'HEAD') req.method = 'GET'
    let em: EntityManager | undefined
    const context: AppContext = {
      ...services,
      booth: boothOf(req),
      staff: staffOf(req),
      // Forked on first use: the public reads never need one.
      get em() {
        return (em ??= services.orm.em.fork())
      },
    }
    const request = toStandardLazyRequest(req, res)
    context.request = { originalUrl: req.originalUrl, headers: req.headers, body: request.body }
    try {
      const result = await handler.handle(request, { context })
      if (!result.matched) return next()
      await send(res, result.response)
    } catch (error) {
      next(error)
    }
  }
}

/**
 * oRPC's answer, with a Content-Length when its body is JSON: oRPC's node adapter sends it chunked
 * after a separate writeHead, so a client cannot know its size ahead and the socket carries the chunk
 * framing too; with the length, Node sends the headers and the body in one piece. A string that its
 * procedure gave a text type (Twilio's TwiML) is sent as it is, not as a JSON string. Any other body
 * goes oRPC's way.
 */
async function send(res: Response, response: StandardResponse): Promise<void> {
  if (!isJsonValue(response.body)) return sendStandardResponse(res, response)
  if (res.writableEnded || res.destroyed) return
  const headers = { ...response.headers }
  const body = isText(response) ? (response.body as string) : (toNodeHttpBody(response.body, headers) as string | undefined)
  if (body !== undefined || !BODYLESS_STATUSES.has(response.status))
    headers['content-length'] = String(body === undefined ? 0 : Buffer.byteLength(body))
  res.writeHead(response.status, toNodeHttpHeaders(headers))
  res.end(body)
}

type StandardResponse = Parameters<typeof sendStandardResponse>[1]

const isJsonValue = (body: unknown) =>
  typeof body !== 'object' || body === null || Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype
const BODYLESS_STATUSES = new Set([204, 304])
const isText = ({ body, headers }: StandardResponse) => typeof body === 'string' && /^text\//i.test(String(headers['content-type'] ?? ''))

const notFound: RequestHandler = (_req, res) => sendError(res, 404, NOT_FOUND_BODY)

function lastResort(services: Services): ErrorRequestHandler {
  const { logger } = services
  return (error, _req, res, _next) => {
    if (res.headersSent) return void res.destroy()
    // Express's own refusals (a malformed %-escape in the path) carry a 4xx status: bad input.
    const status = (error as { status?: unknown }).status
    if (typeof status === 'number' && status >= 400 && status < 500)
      return sendError(res, status, errorBody(status === 400 ? 'malformed_request' : genericErrorCode(status), 'Malformed request'))
    // The routes Express answers itself (gallery reads, bytes, the CSV export) meet outages too.
    const outage = outageOf(error)
    if (outage) {
      noteOutage(outage, error, services)
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS))
      return sendError(res, 503, unavailableBody(outage))
    }
    logger.error('unhandled error', error)
    sendError(res, 500, INTERNAL_ERROR_BODY)
  }
}

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
