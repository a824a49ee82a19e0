import type { IncomingHttpHeaders } from 'node:http'

import type { EntityManager, MikroORM } from '@mikro-orm/postgresql'
import type { LimitFunction } from 'p-limit'

import type { Config } from './config.js'
import type { Logger } from './logger.js'
import type { Metrics } from './metrics.js'
import type { BoothCaller } from './modules/booth-keys/index.js'
import type { ContactLabels, ContactMailer } from './modules/contact/index.js'
import type { StaffAuth, StaffCaller } from './modules/staff/index.js'
import type { RedisCounts } from './modules/rate-limits/index.js'
import type { PhotoStorage } from './modules/storage/index.js'
import type { OpenApiDocument } from './openapi.js'

/**
 * What the app is built from: made once at start (server.ts), shared by every request. A new
 * dependency is a field here and a line where server.ts builds it; procedures see it at once.
 */
export type Services = {
  config: Config
  orm: MikroORM
  logger: Logger
  /** The one clock: every "now" of a request reads it (tests inject their own). */
  now: () => Date
  /** Built beforehand (it is async) so that the app itself is ready synchronously. */
  openApiDocument: OpenApiDocument
  /** Absent when the deployment has no storage configured: routes that need it answer 503. */
  storage?: PhotoStorage
  /** Tells the delivery dispatcher that messages were queued. */
  wakeDelivery: () => void
  /** Tells this instance's copies worker that photos were queued. */
  wakeCopies: () => void
  /** This instance's bound on image work in flight: the copies worker's and the downloads' that make a copy now. */
  imageLimit: LimitFunction
  /** Rate-limit counts shared in Redis; absent: each instance counts its own. */
  rateLimitCounts?: RedisCounts
  /** The labels of the published contact page. */
  contactLabels: ContactLabels
  /** Absent when mail is not configured: the contact form answers 503. */
  contactMailer?: ContactMailer
  /** Better Auth: staff sign-in, sessions and members. */
  auth: StaffAuth
  /** Whether this instance is draining after a SIGTERM (`/readyz` then answers 503). */
  draining: () => boolean
  /** This instance's Prometheus metrics. */
  metrics: Metrics
}

/**
 * What every procedure receives: the services, this request's entity manager (forked on first
 * use), the booth that authenticated it, if any (the booth routes narrow it to present), and the
 * signed-in staff member, if any (the staff routes narrow it to present). Domain functions take
 * `fn(deps, input)`, their deps a `Pick` of this.
 */
export type AppContext = Services & {
  em: EntityManager
  booth?: BoothCaller
  staff?: StaffCaller
  /** Headers to add to the answer (oRPC's ResponseHeadersPlugin). */
  resHeaders?: Headers
  /**
   * The request as sent, for what only it shows (a webhook's signature over its URL and form fields):
   * its path and query, its headers, and its body as oRPC reads it (read once, the same value).
   */
  request?: { originalUrl: string; headers: IncomingHttpHeaders; body: () => Promise<unknown> }
}
