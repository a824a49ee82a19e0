import { isContractProcedure, type AnyContractRouter } from '@orpc/contract'
import { contract, type EdgePolicy } from '@photobooth/sdk/contract'
import { Router, type RequestHandler } from 'express'

import { AppError } from '../errors.js'
import type { OpenApiDocument } from '../openapi.js'
import { errorBody, sendError } from './answers.js'
import { limitedBody, textBody } from './body-limit.js'

type Route = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  path: string
  template: string
  operationId: string
  policy: EdgePolicy
}

/** A contract route's path in Express's syntax (`{id}` → `:id`): declared once, in the contract. */
export const expressPath = (procedure: { '~orpc': { route: { path?: string } } }) =>
  procedure['~orpc'].route.path!.replace(/\{(\w+)\}/g, ':$1')

/** Every route of a contract router, with its method, Express path and edge policy. */
export function* routesOf(router: AnyContractRouter): Generator<Route> {
  if (isContractProcedure(router)) {
    const { route, meta } = router['~orpc'] as { route: { method?: string; operationId?: string }; meta: EdgePolicy }
    yield {
      method: (route.method ?? 'POST').toLowerCase() as Route['method'],
      path: expressPath(router),
      template: (route as { path: string }).path,
      operationId: route.operationId ?? '',
      policy: meta,
    }
    return
  }
  for (const child of Object.values(router)) yield* routesOf(child as AnyContractRouter)
}

/**
 * The API's paths overlap once: `/gallery/events/zip` fits both `/gallery/events/{slug}` (the page of
 * an event slugged `zip`) and `/gallery/{sessionId}/zip`. No session id is `events` (ids are 22 random
 * characters), so it is the event page: the zip's routers (its limit, its bytes) let it pass.
 */
export function passEventPageNamedZip(router: Router): void {
  router.get('/gallery/events/zip', (_req, _res, next) => next('router'))
}

/**
 * A route's last handler: at most one contract route fits a request (the one overlap is passed
 * above), so the routes after it are not walked.
 */
const matched: RequestHandler = (req, _res, next) => {
  // The pattern as matched here, at the app's root: a router mounted further on (`/booth`, `/staff`)
  // that refuses the request would otherwise name it under its own mount path twice (request-log.ts).
  routeMatched.set(req, `${req.baseUrl}${(req.route as { path: string }).path}`)
  next('router')
}

/** The contract route pattern each request matched at the edge. */
export const routeMatched = new WeakMap<object, string>()

/**
 * `handler` (a router) for the paths under `prefix` (a literal path, `/docs`) only, matched as Express
 * matches (in any case): every other request passes it without walking its routes.
 */
export function under(prefix: string, handler: RequestHandler): RequestHandler {
  if (!/^(\/[\w-]+)+$/.test(prefix)) throw new Error(`not a literal path: ${prefix}`)
  const pattern = new RegExp(`^${prefix}(?:/|$)`, 'i')
  return (req, res, next) => (pattern.test(req.path) ? handler(req, res, next) : next())
}

/** The media types a route's body may have, as the document declares them: JSON when it declares none. */
function mediaTypesOf(document: OpenApiDocument, template: string, method: string): string[] {
  const operation = (document.paths?.[template] as Record<string, { requestBody?: { content?: Record<string, unknown> } }> | undefined)?.[
    method
  ]
  const declared = Object.keys(operation?.requestBody?.content ?? {})
  return declared.length > 0 ? declared : ['application/json']
}

/** The 415 for a route that takes `types`: also the document's example. */
export const unsupportedMediaTypeBody = (types: string[]) =>
  errorBody('unsupported_media_type', `Unsupported Media Type: send ${types.join(' or ')}`)

/**
 * 415 `{ error }` for a request whose `Content-Type` is not one of `types`, or that has a body and no
 * `Content-Type`. A request without a body and without a type (a bodiless POST) passes.
 */
function onlyMediaTypes(types: string[]): RequestHandler {
  const refusal = unsupportedMediaTypeBody(types)
  return (req, res, next) => {
    const header = req.headers['content-type']
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined
    if (header === undefined && !hasBody) return next()
    const [essence = '', ...parameters] = (header ?? '').split(';')
    const type = essence.trim().toLowerCase()
    if (!types.includes(type)) return sendError(res, 415, refusal)
    // Media types are case-insensitive; the body parsers after this one compare them as written.
    req.headers['content-type'] = [type, ...parameters].join(';')
    next()
  }
}

/**
 * Each contract route's edge policy (its `meta`: rate limit, body as text), mounted on its path
 * before any route answers: whoever answers it, oRPC or Express, a request passes these first.
 */
export function edgePolicies(limit: (bucket: string, perMinute: number) => RequestHandler, document: OpenApiDocument): Router {
  const router = Router()
  passEventPageNamedZip(router)
  for (const { method, path, template, policy } of routesOf(contract)) {
    const handlers: RequestHandler[] = []
    if (policy.rateLimit) handlers.push(limit(policy.rateLimit.bucket, policy.rateLimit.perMinute))
    // A body in any other media type than the route's own is refused before anything reads it: a
    // form post needs no preflight, so any website could otherwise make its visitors' browsers post
    // to a JSON route. A route that takes text (`/track`: a page-close beacon's) takes any.
    const types = mediaTypesOf(document, template, method)
    if (method !== 'get' && !types.includes('text/plain')) handlers.push(onlyMediaTypes(types))
    if (policy.textBody) {
      const { maxBytes, tooLarge, notText } = policy.textBody
      handlers.push(
        textBody(maxBytes, {
          tooLarge: () => new AppError(tooLarge.code, tooLarge.error),
          notText: () => new AppError(notText.code, notText.error),
        }),
      )
    }
    if (policy.body) {
      const { maxBytes, refused } = policy.body
      handlers.push(limitedBody(maxBytes, () => new AppError(refused.code, refused.error)))
    }
    // Every route is registered, with a policy or without: its match names the request's route
    // pattern for the request log and the metrics (`req.route`, request-log.ts).
    router.route(path)[method](...handlers, matched)
  }
  return router
}
