import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import type { RedisClientType } from 'redis'

import { createApp } from './app.js'
import { resolveConfig, type Config, type ContactSettings, type DeliverySettings, type Settings, type StorageSettings } from './config.js'
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.js'
import { migrate, openOrm, pendingMigrations, type Orm, type QueryListener } from './db/orm.js'
import { seedDemo } from './db/seed.js'
import { trackConnections } from './http/connection-drain.js'
import { answerNodeRefusals } from './http/node-refusals.js'
import type { Logger } from './logger.js'
import { createContactLabels } from './modules/contact/contact-labels.js'
import { createConsoleContactMailer, createPostmarkContactMailer } from './modules/contact/contact-mailers.js'
import type { ContactMailer } from './modules/contact/contact.service.js'
import { createConsoleTransport } from './modules/delivery/console-transport.js'
import { startDispatcher } from './modules/delivery/dispatcher.js'
import { listenForOutbox } from './modules/delivery/outbox-listener.js'
import { createPostmarkTransport } from './modules/delivery/postmark-transport.js'
import type { Transports } from './modules/delivery/transport.js'
import { pruneExpiredKeys } from './modules/idempotency/idempotency.middleware.js'
import { redisStores } from './modules/rate-limits/rate-limits.js'
import { removeDeletedPhotos } from './modules/sessions/delete-sessions.service.js'
import { createAuth, type AuthService, type StaffAuth } from './modules/staff/auth.js'
import { resolveAuthSecret } from './modules/staff/auth-secret.js'
import { createTwilioTransport } from './modules/delivery/twilio-transport.js'
import { createLocalStorage, type LocalStorage } from './modules/storage/local-storage.js'
import { createS3Storage } from './modules/storage/s3-storage.js'
import { UPLOAD_URL_TTL_SECONDS, type PhotoStorage } from './modules/storage/storage.js'
import { createMetrics } from './metrics.js'
import { buildOpenApiDocument } from './openapi.js'

function createStorage(settings: StorageSettings, publicUrl: string, now: () => Date): PhotoStorage | undefined {
  switch (settings.kind) {
    case 's3':
      return createS3Storage({ ...settings, now })
    case 'local':
      return createLocalStorage({ root: settings.root, publicUrl, secret: settings.secret, now })
    case 'none':
      return undefined
  }
}

function createContactMailer(settings: ContactSettings, logger: Logger): ContactMailer | undefined {
  if (!settings.mail) return undefined
  return settings.mail.kind === 'postmark' ? createPostmarkContactMailer(settings.mail) : createConsoleContactMailer(logger)
}

/** Loaded only when `REDIS_URL` is set: a start without it does not pay for the client. */
async function connectRedis(url: string): Promise<RedisClientType> {
  const { createClient } = await import('redis')
  const client: RedisClientType = createClient({ url })
  await client.connect()
  return client
}

function createTransports(settings: DeliverySettings, logger: Logger): Transports {
  const toLog = createConsoleTransport(logger)
  return {
    email: settings.email && (settings.email.kind === 'postmark' ? createPostmarkTransport(settings.email) : toLog),
    sms: settings.sms && (settings.sms.kind === 'twilio' ? createTwilioTransport(settings.sms) : toLog),
  }
}

export type RunningServer = {
  url: string
  config: Config
  orm: Orm
  server: Server
  /** Better Auth, for tests and tools that create staff members. */
  auth: StaffAuth
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
  const orm = await openOrm(databaseUrl, { onQuery })
  const metrics = createMetrics({ orm })
  const clock = now ?? (() => new Date())
  let redis: RedisClientType | undefined
  let server: Server | undefined
  let auth: AuthService | undefined
  try {
    if (settings.migrateOnStart) await migrate(orm)
    const pending = await pendingMigrations(orm)
    if (pending.length > 0) {
      // Started ahead of its release step: up, but not ready (/readyz) until `migrate` has run.
      logger.error('migrations pending: run `pnpm migrate` (or `node server/dist/admin.js migrate`)', new Error(`pending: ${pending.join(', ')}`))
    } else {
      // Idempotency keys that expired while no instance ran (then hourly, modules/idempotency).
      await pruneExpiredKeys(orm.em.fork(), clock())
      if (settings.seedDemo) await seedDemo(orm.em.fork(), { whenEmpty: true })
    }
    const openApiDocument = await buildOpenApiDocument()
    const authSecret = await resolveAuthSecret(settings.staffAuth.secret, settings.dataDir)
    redis = settings.redisUrl ? await connectRedis(settings.redisUrl) : undefined
    const rateLimitStore = redis && (await redisStores(redis))

    server = createServer({
      // Checked by answerNodeRefusals, which answers in the service's error shape.
      requireHostHeader: false,
      // Node checks headersTimeout (60 s) and requestTimeout (5 min) this often (every 30 s by default): a request
      // that is too slow is answered 408 within a second of its deadline.
      connectionsCheckingInterval: 1_000,
    })
    const refusals = answerNodeRefusals(server)
    const connections = trackConnections(server)
    const listening = server
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(settings.port, settings.host, () => {
        listening.off('error', reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    const config = resolveConfig(settings, port)
    auth = createAuth(
      { secret: authSecret, publicUrl: config.publicUrl, trustedOrigins: config.staffAuth.trustedOrigins, secureCookies: config.mode === 'production' },
      databaseUrl,
      logger,
    )
    // Nothing below awaits: the request listener is attached in the same tick as the listen
    // callback, so no request can arrive before it.
    const storage = createStorage(settings.storage, config.publicUrl, clock)
    // A crash mid-upload leaves a partial file beside the photos; one untouched this long is dead.
    // Swept in the background: a large bucket must not delay the start.
    if (storage?.kind === 'local') {
      ;(storage as LocalStorage).sweepPartialUploads(UPLOAD_URL_TTL_SECONDS * 1000).then(
        (removed) => removed > 0 && logger.info('removed partial uploads left by a crash', { removed }),
        (error: unknown) => logger.error('partial uploads could not be swept', error),
      )
    }
    // Photos of sessions deleted while storage was failing (or by an instance that stopped mid-way).
    void removeDeletedPhotos({ orm, storage, logger })
    const dispatcher = settings.delivery.dispatch
      ? startDispatcher({ orm, transports: createTransports(settings.delivery, logger), logger, settings: settings.delivery.dispatcher, metrics })
      : undefined
    const listener = dispatcher ? listenForOutbox(databaseUrl, dispatcher.wake, logger) : undefined
    const app = createApp({
      config,
      orm,
      logger,
      now: clock,
      openApiDocument,
      storage,
      wakeDelivery: dispatcher?.wake ?? (() => {}),
      rateLimitStore,
      contactLabels: createContactLabels(settings.contact.form, logger, clock),
      contactMailer: createContactMailer(settings.contact, logger),
      auth: auth.auth,
      draining: () => stopRequested,
      metrics,
    })
    server.on('request', connections.handle(refusals.handle(app)))

    const graceMs = settings.shutdownGraceMs
    let stopping: Promise<void> | undefined
    let stopRequested = false
    const stop = () =>
      (stopping ??= (async () => {
        // Still serving, but not ready: the load balancer takes the instance out before it closes.
        stopRequested = true
        if (settings.shutdownDelayMs > 0) {
          logger.info('not ready: serving on until the shutdown delay is over', { delayMs: settings.shutdownDelayMs })
          await new Promise((resolve) => setTimeout(resolve, settings.shutdownDelayMs))
        }
        let graceTimer: NodeJS.Timeout | undefined
        const graceOver = new Promise<'grace over'>((resolve) => (graceTimer = setTimeout(() => resolve('grace over'), graceMs)))
        // Nothing new is taken; requests in flight finish, and so does the message in hand.
        const delivery = Promise.all([dispatcher?.stop(), listener?.close()])
        const { forced } = await connections.drain(graceMs)
        if (forced > 0) logger.info('shutdown grace ran out: connections closed', { connections: forced, graceMs })
        if ((await Promise.race([delivery, graceOver])) === 'grace over') logger.info('shutdown grace ran out: delivery not stopped', { graceMs })
        clearTimeout(graceTimer)
        // The database last: every request that was received has had its answer, or its grace.
        await redis?.quit()
        await auth?.close()
        await orm.close()
        await embedded?.stop()
      })())
    return { url: `http://localhost:${port}`, config, orm, server, auth: auth.auth, stop }
  } catch (error) {
    server?.close()
    await redis?.quit()
    await auth?.close()
    await orm.close()
    // An adopted cluster may be another running instance's (this one could not listen): left alone.
    if (!embedded?.adopted) await embedded?.stop()
    throw error
  }
}
