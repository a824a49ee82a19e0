import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { createClient, type RedisClientType } from 'redis'

import { createApp } from './app.js'
import { resolveConfig, type Config, type ContactSettings, type DeliverySettings, type Settings, type StorageSettings } from './config.js'
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.js'
import { migrate, openOrm, type Orm, type QueryListener } from './db/orm.js'
import { createPoolSql } from './db/pool-sql.js'
import { seedDemo } from './db/seed.js'
import type { Logger } from './logger.js'
import { createContactLabels } from './modules/contact/contact-labels.js'
import { createConsoleContactMailer, createPostmarkContactMailer } from './modules/contact/contact-mailers.js'
import type { ContactMailer } from './modules/contact/contact.service.js'
import { createConsoleTransport } from './modules/delivery/console-transport.js'
import { startDispatcher, type Dispatcher } from './modules/delivery/dispatcher.js'
import { listenForOutbox } from './modules/delivery/outbox-listener.js'
import { createPostmarkTransport } from './modules/delivery/postmark-transport.js'
import type { Transports } from './modules/delivery/transport.js'
import { createTwilioTransport } from './modules/delivery/twilio-transport.js'
import { createLocalStorage } from './modules/storage/local-storage.js'
import { createS3Storage } from './modules/storage/s3-storage.js'
import type { PhotoStorage } from './modules/storage/storage.js'
import { buildOpenApiDocument } from './openapi.js'

function createStorage(settings: StorageSettings, publicUrl: string): PhotoStorage | undefined {
  switch (settings.kind) {
    case 's3':
      return createS3Storage(settings)
    case 'local':
      return createLocalStorage({ root: settings.root, publicUrl, secret: settings.secret })
    case 'none':
      return undefined
  }
}

function createContactMailer(settings: ContactSettings, logger: Logger): ContactMailer | undefined {
  if (!settings.mail) return undefined
  return settings.mail.kind === 'postmark' ? createPostmarkContactMailer(settings.mail) : createConsoleContactMailer(logger)
}

async function connectRedis(url: string): Promise<RedisClientType> {
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
  /** Absent when this instance does not dispatch (`DELIVERY=off`). */
  dispatcher?: Dispatcher
  /** Stops taking connections, lets requests in flight finish, then closes the database. */
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
  try {
    await migrate(orm)
    if (settings.seedDemo) await seedDemo(orm.em.fork())
    const openApiDocument = await buildOpenApiDocument()

    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(settings.port, settings.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
    const { port } = server.address() as AddressInfo
    const config = resolveConfig(settings, port)
    // Attached in the same tick as the listen callback, so no request can arrive before it.
    const redis = settings.redisUrl ? await connectRedis(settings.redisUrl) : undefined
    const storage = createStorage(settings.storage, config.publicUrl)
    const db = createPoolSql(orm, onQuery)
    const dispatcher = settings.delivery.dispatch
      ? startDispatcher({ db, transports: createTransports(settings.delivery, logger), logger, settings: settings.delivery.dispatcher })
      : undefined
    const listener = dispatcher ? listenForOutbox(databaseUrl, dispatcher.wake, logger) : undefined
    const contactLabels = createContactLabels(settings.contact.form, logger)
    const contactMailer = createContactMailer(settings.contact, logger)
    server.on(
      'request',
      createApp({ config, orm, db, logger, openApiDocument, storage, now, wakeDelivery: dispatcher?.wake, redis, contactLabels, contactMailer }),
    )

    const stop = async () => {
      const closing = new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
      // Requests in flight finish, and so does the message in hand; nothing new is taken.
      await Promise.all([closing, dispatcher?.stop(), listener?.close()])
      await redis?.quit()
      await orm.close()
      await embedded?.stop()
    }
    return { url: `http://localhost:${port}`, config, orm, server, dispatcher, stop }
  } catch (error) {
    await orm.close()
    await embedded?.stop()
    throw error
  }
}
