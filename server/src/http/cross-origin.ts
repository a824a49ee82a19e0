import { contract } from '@photobooth/sdk/contract'
import cors from 'cors'
import { Router, type RequestHandler } from 'express'

import { expressPath } from './edge.js'

/**
 * The routes a guest-facing page on another origin calls from the browser: a browser kiosk (its
 * context and its registrations), the galleries and their files, the beacon, and the business's
 * website's contact form. Never the booth's or staff's.
 */
const PUBLIC_ROUTES = [
  contract.kiosk.getContext,
  contract.kiosk.registerGuests,
  contract.contact.submit,
  contract.gallery.getEventPage,
  contract.gallery.getGallery,
  contract.gallery.downloadPhoto,
  contract.gallery.downloadZip,
  contract.tracking.track,
]

/**
 * CORS for `CORS_ORIGINS` (none by default: then no route answers a preflight, as before): the
 * public routes answer those origins' preflights (204) and carry the CORS headers, so that an
 * operator's own gallery site can call them. A request from any other origin gets no CORS header and
 * its preflight the usual 404.
 */
export function crossOrigin(origins: readonly string[]): Router {
  const router = Router()
  const allowed = new Set(origins)
  const policy = cors({
    origin: [...allowed],
    methods: ['GET', 'HEAD', 'POST'],
    // The SDK names itself and keys its registrations; a beacon sent by fetch may be JSON.
    allowedHeaders: ['content-type', 'idempotency-key', 'x-photobooth-sdk', 'x-request-id'],
    exposedHeaders: ['content-disposition', 'content-length', 'x-request-id', 'idempotent-replayed'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  })
  const fromAllowed: RequestHandler = (req, res, next) => (allowed.has(req.headers.origin ?? '') ? policy(req, res, next) : next())
  for (const procedure of PUBLIC_ROUTES) {
    const { method } = procedure['~orpc'].route as { method: 'GET' | 'POST' }
    router.route(expressPath(procedure)).options(fromAllowed)[method === 'GET' ? 'get' : 'post'](fromAllowed)
  }
  return router
}

/**
 * CORS with credentials for the operator's dashboards (`TRUSTED_ORIGINS`, beyond the service's own):
 * every staff route and the contract's sign-in routes answer those origins' preflights (204) and
 * carry `Access-Control-Allow-Credentials`, so that a dashboard on another origin signs in and calls
 * the staff API with the session cookie. Any other origin gets no CORS header, and its preflight the
 * usual 404. The booth's and the kiosk's changes never answer here.
 */
export function staffCrossOrigin(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins)
  const policy = cors({
    origin: [...allowed],
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['content-type', 'idempotency-key', 'x-photobooth-sdk', 'x-request-id'],
    exposedHeaders: ['content-disposition', 'content-length', 'x-request-id', 'idempotent-replayed'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  })
  const authPaths = new Set(Object.values(contract.staff.auth).map((procedure) => expressPath(procedure)))
  return (req, res, next) => {
    const staffPath = /^\/staff(\/|$)/.test(req.path) || authPaths.has(req.path)
    return staffPath && allowed.has(req.headers.origin ?? '') ? policy(req, res, next) : next()
  }
}
