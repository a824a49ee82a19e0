/**
 * Operator commands on the same database as the service:
 *   pnpm admin booth-key create --name "<booth>"
 *   pnpm admin booth-key list
 *   pnpm admin booth-key revoke <id>
 */
import { parseArgs } from 'node:util'

import { loadSettings } from './config.js'
import { startEmbeddedPostgres } from './db/embedded-postgres.js'
import { migrate, openOrm } from './db/orm.js'
import { createBoothKey, listBoothKeys, revokeBoothKey } from './modules/booth-keys/booth-keys.service.js'

const USAGE = `Usage:
  pnpm admin booth-key create --name "<booth>"   create a key; it is shown once
  pnpm admin booth-key list                       list keys (never their secrets)
  pnpm admin booth-key revoke <id>                revoke a key at once`

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { name: { type: 'string' } } })
  const [area, verb, argument] = positionals
  if (area !== 'booth-key' || !verb) {
    console.error(USAGE)
    return 2
  }
  const settings = loadSettings()
  const embedded = settings.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: settings.dataDir, port: settings.embeddedPostgresPort, database: 'photobooth' })
  const orm = await openOrm(settings.databaseUrl ?? embedded!.url)
  try {
    await migrate(orm)
    const em = orm.em.fork()
    switch (verb) {
      case 'create': {
        if (!values.name?.trim()) {
          console.error('booth-key create needs --name "<booth>"')
          return 2
        }
        const created = await createBoothKey(em, values.name)
        console.log(`Created booth key ${created.id} for "${created.name}". Copy it now, it is not shown again:\n\n  ${created.key}\n`)
        return 0
      }
      case 'list': {
        for (const key of await listBoothKeys(em)) {
          const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'
          console.log(`${key.id}  ${state.padEnd(32)}  last used ${key.lastUsedAt?.toISOString() ?? 'never'}  ${key.name}`)
        }
        return 0
      }
      case 'revoke': {
        if (!argument) {
          console.error('booth-key revoke needs the key id')
          return 2
        }
        const revoked = await revokeBoothKey(em, argument)
        console.log(revoked ? `Revoked ${argument}.` : `No active key ${argument}.`)
        return revoked ? 0 : 1
      }
      default:
        console.error(USAGE)
        return 2
    }
  } finally {
    await orm.close()
    // Leave a cluster that the running service started alone; stop only one started here.
    if (embedded && !embedded.adopted) await embedded.stop()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  },
)
