import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'

import { contract } from '@photobooth/sdk/contract'
import pLimit from 'p-limit'

import { createApp } from './app.js'
import { resolveConfig, type Config, type ContactSettings, type DeliverySettings, type Settings } from './config.js'
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.js'
import { migrate, openOrm, pendingMigrations, type Orm, type QueryListener } from './db/orm.js'
import { listenForNotifications, type NotificationListener } from './db/notifications.js'
import { seedDemo } from './modules/events/index.js'
import { trackConnections } from './http/connection-drain.js'
import { expressPath } from './http/edge.js'
import { answerNodeRefusals } from './http/node-refusals.js'
import { requestLines } from './http/request-log.js'
import type { Logger } from './logger.js'
import {
  type ContactMailer,
  createConsoleContactMailer,
  createContactLabels,
  createPostmarkContactMailer,
} from './modules/contact/index.js'
import {
  createConsoleTransport,
  createPostmarkTransport,
  createTwilioTransport,
  type Dispatcher,
  NOT_CONFIGURED,
  OUTBOX_CHANNEL,
  startDispatcher,
  type Transports,
} from './modules/messages/index.js'
import { COPIES_CHANNEL, type CopiesWorker, startCopiesWorker } from './modules/photos/index.js'
import { createStorage, type LocalStorage, type PhotoStorage, UPLOAD_URL_TTL_SECONDS } from './modules/storage/index.js'
import { startPurgeWorker, type PurgeWorker } from './modules/retention/index.js'
import { CHANNELS } from './db/entities/outbox-message.entity.js'
import { pruneExpiredKeys } from './modules/idempotency/index.js'
import { connectRedisCounts, type RedisCounts } from './modules/rate-limits/index.js'
import { removeDeletedPhotos } from './modules/sessions/index.js'
import { type AuthService, createAuth, resolveAuthSecret, type StaffAuth } from './modules/staff/index.js'
import { createMetrics } from './metrics.js'
import { buildOpenApiDocument } from './openapi.js'

function createContactMailer(settings: ContactSettings, logger: Logger): ContactMailer | undefined {
  if (!settings.mail) return undefined
  return settings.mail.kind === 'postmark' ? createPostmarkContactMailer(settings.mail) : createConsoleContactMailer(logger)
}

/** `publicUrl`: where Twilio reports each SMS's fate (modules/webhooks). */
function createTransports(settings: DeliverySettings, logger: Logger, publicUrl: string): Transports {
  const toLog = createConsoleTransport(logger)
  const statusCallbackUrl = `${publicUrl.replace(/\/$/, '')}${expressPath(contract.webhooks.twilioStatus)}`
  return {
    email: settings.email && (settings.email.kind === 'postmark' ? createPostmarkTransport(settings.email) : toLog),
    sms: settings.sms && (settings.sms.kind === 'twilio' ? createTwilioTransport({ statusCallbackUrl, ...settings.sms }) : toLog),
  }
}

/** How often an instance started ahead of its migrations looks whether the release step has applied them. */
const MIGRATION_CHECK_MS = 2_000

/** Resolves true once no migration is pending, false if `signal` aborts first. */
async function untilMigrated(orm: Orm, signal: AbortSignal): Promise<boolean> {
  while (!signal.aborted) {
    await delay(MIGRATION_CHECK_MS, undefined, { signal }).catch(() => {})
    // A look that fails is tried again: a database that does not answer is /readyz's to report.
    if (!signal.aborted && (await pendingMigrations(orm).catch(() => undefined))?.length === 0) return true
  }
  return false
}

export type RunningServer = {
  url: string
  config: Config
  orm: Orm
  server: Server
  /** Better Auth, for tests and tools that create staff members. */
  auth: StaffAuth
  /** The photo storage the settings name (none: not configured), for tests and tools. */
  storage: PhotoStorage | undefined
  /**
   * Stops taking connections, answers the requests in flight (with `Connection: close`) within the
   * shutdown grace, then closes the database, the embedded cluster last.
   */
  stop: () => Promise<void>
}

export type StartOptions = {
  settings: Settings
  logger: Logger
  onQuery?: QueryListener
  now?: () => Date
}

/** The one start-up path, for `pnpm start`, production and tests alike. */
export async function startServer({ settings, logger, onQuery, now }: StartOptions): Promise<RunningServer> {
  let embedded: EmbeddedDatabase | undefined
  let databaseUrl = settings.databaseUrl
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: settings.dataDir, port: settings.embeddedPostgresPort, database: 'photobooth' })
    databaseUrl = embedded.url
    logger.info('embedded PostgreSQL started', { dataDir: settings.dataDir, port: settings.embeddedPostgresPort })
  }
  const orm = await openOrm(databaseUrl, { onQuery, timeouts: settings.databaseTimeouts, logger, rowChecks: settings.rowChecks })
  const metrics = createMetrics({ orm })
  const clock = now ?? (() => new Date())
  let redis: RedisCounts | undefined
  let server: Server | undefined
  let auth: AuthService | undefined
  try {
    if (settings.migrateOnStart) {
      const applied = await migrate(orm)
      logger.info(applied.length > 0 ? 'migrations applied' : 'no migrations pending', { migrations: applied })
    }
    const pending = await pendingMigrations(orm)
    const prepareData = async () => {
      // Idempotency keys that expired while no instance ran (then hourly, modules/idempotency).
      await pruneExpiredKeys(orm.em.fork(), clock())
      if (settings.seedDemo) await seedDemo(orm.em.fork(), { whenEmpty: true })
    }
    if (pending.length > 0) {
      // The release flow (docs/production.md), not a fault: up, but not ready (/readyz), and nothing reads the
      // schema until `migrate` has run.
      logger.warn('migrations pending: waiting for `pnpm migrate` (or `node server/dist/admin.js migrate`)', { pending })
    } else {
      await prepareData()
    }
    // Development has console stand-ins; in production a channel without a provider has none.
    const unprovided = CHANNELS.filter((channel) => !settings.delivery[channel])
    if (settings.mode === 'production' && settings.delivery.dispatch && unprovided.length > 0) {
      logger.warn(`no provider for ${unprovided.join(' and ')}: gallery links wait as "${NOT_CONFIGURED}"`, { channels: unprovided })
    }
    const openApiDocument = await buildOpenApiDocument()
    const authSecret = await resolveAuthSecret(settings.staffAuth.secret, settings.dataDir)
    // Not waited for: Redis only counts rate limits, which let requests through while it is away.
    redis = settings.redisUrl
      ? await connectRedisCounts({ url: settings.redisUrl, timeoutMs: settings.redisTimeoutMs }, { logger, metrics })
      : undefined

    server = createServer({
      // Checked by answerNodeRefusals, which answers in the service's error shape.
      requireHostHeader: false,
      // Node checks headersTimeout (60 s) and requestTimeout (5 min) this often (every 30 s by default): a request
      // that is too slow is answered 408 within a second of its deadline.
      connectionsCheckingInterval: 1_000,
    })
    const refusals = answerNodeRefusals(server, requestLines(logger, metrics))
    const connections = trackConnections(server)
    const listening = server
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(settings.port, settings.host, () => {
        listening.off('error', reject)
        resolve()
      })
    })
    const { address: host, port } = server.address() as AddressInfo
    const config = resolveConfig(settings, port)
    auth = createAuth(
      {
        secret: authSecret,
        publicUrl: config.publicUrl,
        trustedOrigins: config.staffAuth.trustedOrigins,
        secureCookies: config.mode === 'production',
      },
      { url: databaseUrl, timeouts: settings.databaseTimeouts },
      logger,
    )
    // Nothing below awaits: the request listener is attached in the same tick as the listen
    // callback, so no request can arrive before it.
    const storage = createStorage(settings.storage, config.publicUrl, clock, () => metrics.dependencyErrors.inc({ dependency: 'storage' }))
    // A crash mid-upload leaves a partial file beside the photos; one untouched this long is dead.
    // Swept in the background: a large bucket must not delay the start.
    if (storage?.kind === 'local') {
      ;(storage as LocalStorage).sweepPartialUploads(UPLOAD_URL_TTL_SECONDS * 1000).then(
        (removed) => removed > 0 && logger.info('removed partial uploads left by a crash', { removed }),
        (error: unknown) => logger.error('partial uploads could not be swept', error),
      )
    }
    // Image work in flight on this instance, the worker's and the downloads' that cannot wait for it.
    const imageLimit = pLimit(settings.copies.worker.concurrency)
    const app = createApp({
      config,
      orm,
      logger,
      now: clock,
      openApiDocument,
      storage,
      wakeDelivery: () => dispatcher?.wake(),
      wakeCopies: () => copies?.wake(),
      imageLimit,
      rateLimitCounts: redis,
      contactLabels: createContactLabels(settings.contact.form, logger, clock),
      contactMailer: createContactMailer(settings.contact, logger),
      auth: auth.auth,
      draining: () => stopRequested.signal.aborted,
      metrics,
    })
    server.on('request', connections.handle(refusals.handle(app)))

    // The background work that reads the schema: started now, or once the release step has migrated.
    let dispatcher: Dispatcher | undefined
    let copies: CopiesWorker | undefined
    let purge: PurgeWorker | undefined
    let listener: NotificationListener | undefined
    const startSchemaWork = () => {
      // Photos of sessions deleted while storage was failing (or by an instance that stopped mid-way).
      void removeDeletedPhotos({ orm, storage, logger, config })
      const wake: Record<string, () => void> = {}
      if (settings.delivery.dispatch) {
        dispatcher = startDispatcher({
          orm,
          transports: createTransports(settings.delivery, logger, config.publicUrl),
          logger,
          settings: settings.delivery.dispatcher,
          publicUrl: config.publicUrl,
          metrics,
        })
        wake[OUTBOX_CHANNEL] = dispatcher.wake
      }
      if (settings.copies.work && storage) {
        copies = startCopiesWorker({
          orm,
          logger,
          storage,
          imageLimit,
          metrics,
          settings: settings.copies.worker,
          wakeDelivery: () => dispatcher?.wake(),
        })
        wake[COPIES_CHANNEL] = copies.wake
      }
      if (settings.retention.work)
        purge = startPurgeWorker({
          orm,
          storage,
          logger,
          config,
          now: clock,
          defaultDays: settings.retention.defaultDays,
          intervalMs: settings.retention.intervalMs,
        })
      if (Object.keys(wake).length > 0)
        listener = listenForNotifications({ url: databaseUrl, timeouts: settings.databaseTimeouts }, wake, logger)
    }
    const stopRequested = new AbortController()
    let waiting: Promise<void> | undefined
    if (pending.length === 0) startSchemaWork()
    else {
      waiting = untilMigrated(orm, stopRequested.signal)
        .then(async (migrated) => {
          if (!migrated) return
          logger.info('migrations applied: starting the work that waited for them')
          await prepareData()
          startSchemaWork()
        })
        .catch((error: unknown) => logger.error('start-up work failed after the migrations', error))
    }

    const graceMs = settings.shutdownGraceMs
    let stopping: Promise<void> | undefined
    const stop = () =>
      (stopping ??= (async () => {
        const startedAt = performance.now()
        // Still serving, but not ready: the load balancer takes the instance out before it closes.
        stopRequested.abort()
        if (settings.shutdownDelayMs > 0) {
          logger.info('not ready: serving on until the shutdown delay is over', { delayMs: settings.shutdownDelayMs })
          await new Promise((resolve) => setTimeout(resolve, settings.shutdownDelayMs))
        }
        // Work that waited for the migrations no longer starts, unless it already has: then it is stopped below.
        await waiting
        let graceTimer: NodeJS.Timeout | undefined
        const graceOver = new Promise<'grace over'>((resolve) => (graceTimer = setTimeout(() => resolve('grace over'), graceMs)))
        // Nothing new is taken; requests in flight finish, and so do the message and the photos in hand.
        const delivery = Promise.all([dispatcher?.stop(), copies?.stop(), purge?.stop(), listener?.close()])
        const { forced } = await connections.drain(graceMs)
        if (forced > 0) logger.info('shutdown grace ran out: connections closed', { connections: forced, graceMs })
        if ((await Promise.race([delivery, graceOver])) === 'grace over')
          logger.info('shutdown grace ran out: delivery not stopped', { graceMs })
        clearTimeout(graceTimer)
        // The database last: every request that was received has had its answer, or its grace.
        await redis?.close()
        await auth?.close()
        await orm.close()
        await embedded?.stop()
        // The last line: the caller exits once this resolves.
        logger.info('stopped', { durationMs: Math.round(performance.now() - startedAt) })
      })())
    logger.info('photo booth service listening', { url: config.publicUrl, host, port, mode: config.mode })
    return { url: `http://localhost:${port}`, config, orm, server, auth: auth.auth, storage, stop }
  } catch (error) {
    server?.close()
    await redis?.close()
    await auth?.close()
    await orm.close()
    // An adopted cluster may be another running instance's (this one could not listen): left alone.
    if (!embedded?.adopted) await embedded?.stop()
    throw error
  }
}
