import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { createApp } from './app.js'
import { resolveConfig, type Config, type Settings, type StorageSettings } from './config.js'
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded-postgres.js'
import { migrate, openOrm, type Orm, type QueryListener } from './db/orm.js'
import { createPoolSql } from './db/pool-sql.js'
import { seedDemo } from './db/seed.js'
import type { Logger } from './logger.js'
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

export type RunningServer = {
  url: string
  config: Config
  orm: Orm
  server: Server
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
    const storage = createStorage(settings.storage, config.publicUrl)
    server.on('request', createApp({ config, orm, db: createPoolSql(orm, onQuery), logger, openApiDocument, storage, now }))

    const stop = async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
      await orm.close()
      await embedded?.stop()
    }
    return { url: `http://localhost:${port}`, config, orm, server, stop }
  } catch (error) {
    await orm.close()
    await embedded?.stop()
    throw error
  }
}
