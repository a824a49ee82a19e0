/**
 * Operator commands on the same database as the service:
 *   pnpm admin staff create --email <email> [--name "<name>"] [--password <password>]
 *   pnpm admin staff list
 *   pnpm admin staff set-role --email <email> --role <owner|manager|staff>
 *   pnpm admin booth-key create --name "<booth>"
 *   pnpm admin booth-key list
 *   pnpm admin booth-key revoke <id>
 *   pnpm admin demo seed
 *   pnpm admin photos make-copies
 *   pnpm admin migrate          (also `pnpm migrate`; built: `node server/dist/admin.js migrate`)
 */
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'

import { NewStaffMember, StaffRole } from '@photobooth/sdk/schemas'
import type { z } from 'zod'

import { loadSettings, resolveConfig } from './config.js'
import { startEmbeddedPostgres } from './db/embedded-postgres.js'
import { migrate, openOrm, type Orm } from './db/orm.js'
import { DEMO, seedDemo } from './modules/events/index.js'
import { createLogger } from './logger.js'
import { makeLegacyCopies } from './modules/photos/index.js'
import { createStorage } from './modules/storage/index.js'
import { createBoothKey, listBoothKeys, revokeBoothKey } from './modules/booth-keys/index.js'
import { createAuth, resolveAuthSecret } from './modules/staff/index.js'
import { createStaffMember, listStaffMembers, setStaffRole } from './modules/members/index.js'

const USAGE = `Usage:
  pnpm admin staff create --email <email> [--name "<name>"] [--password <password>]
                                                  create an owner (asks for the password when not given)
  pnpm admin staff list                           list staff members and their roles
  pnpm admin staff set-role --email <email> --role <owner|manager|staff>
                                                  give a member a role (restores an owner to a team without one)
  pnpm admin booth-key create --name "<booth>"   create a key; it is shown once
  pnpm admin booth-key list                       list keys (never their secrets)
  pnpm admin booth-key revoke <id>                revoke a key at once
  pnpm admin demo seed                            create the demo event (slug "demo") unless it exists
  pnpm admin photos make-copies                   make the copies of photos completed before copies existed
                                                  (idempotent; an interrupted run resumes where it stopped)
  pnpm admin migrate                              apply pending migrations (every command does first)`

/** A usage mistake: said on stderr, exit code 2, and nothing is written. */
class UsageError extends Error {}

type Command = { run: (orm: Orm, applied: string[]) => Promise<number> }

/** What `positionals` and `values` ask for, checked before the database is opened. */
function commandOf(positionals: string[], values: { name?: string; email?: string; password?: string; role?: string }): Command {
  const [area, verb, argument] = positionals
  if (area === 'migrate' && verb === undefined) {
    return {
      run: async (_orm, applied) => {
        console.log(applied.length > 0 ? `Applied ${applied.join(', ')}.` : 'Every migration is applied.')
        return 0
      },
    }
  }
  switch (`${area} ${verb}`) {
    case 'staff create':
      if (!values.email?.trim()) throw new UsageError('staff create needs --email <email>')
      return { run: (orm) => createStaff(orm, values.email!, values) }
    case 'staff list':
      return { run: listStaff }
    case 'staff set-role': {
      const role = StaffRole.safeParse(values.role)
      if (!values.email?.trim() || !role.success) throw new UsageError('staff set-role needs --email <email> --role <owner|manager|staff>')
      return { run: (orm) => setRole(orm, values.email!, role.data) }
    }
    case 'booth-key create':
      if (!values.name?.trim()) throw new UsageError('booth-key create needs --name "<booth>"')
      return {
        run: async (orm) => {
          const created = await createBoothKey(orm.em.fork(), values.name!)
          console.log(`Created booth key ${created.id} for "${created.name}". Copy it now, it is not shown again:\n\n  ${created.key}\n`)
          return 0
        },
      }
    case 'booth-key list':
      return {
        run: async (orm) => {
          for (const key of await listBoothKeys(orm.em.fork())) {
            const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active'
            console.log(`${key.id}  ${state.padEnd(32)}  last used ${key.lastUsedAt?.toISOString() ?? 'never'}  ${key.name}`)
          }
          return 0
        },
      }
    case 'booth-key revoke':
      if (!argument) throw new UsageError('booth-key revoke needs the key id')
      return {
        run: async (orm) => {
          const revoked = await revokeBoothKey(orm.em.fork(), argument)
          console.log(revoked ? `Revoked ${argument}.` : `No active key ${argument}.`)
          return revoked ? 0 : 1
        },
      }
    case 'demo seed':
      return {
        run: async (orm) => {
          const outcome = await seedDemo(orm.em.fork(), { whenEmpty: false })
          const sets = DEMO.sets.map((set) => `${DEMO.eventSlug}/${set.slug}`).join(', ')
          console.log(
            outcome === 'created'
              ? `Created the demo event "${DEMO.eventSlug}" with its sets ${sets}.`
              : `The demo event "${DEMO.eventSlug}" already exists.`,
          )
          return 0
        },
      }
    case 'photos make-copies':
      return { run: makeCopies }
    default:
      throw new UsageError(USAGE)
  }
}

async function makeCopies(orm: Orm): Promise<number> {
  const settings = loadSettings()
  const storage = createStorage(settings.storage, resolveConfig(settings, settings.port).publicUrl, () => new Date())
  if (!storage) throw new UsageError('No photo storage is configured (S3_BUCKET): there are no photos to copy.')
  const logger = createLogger({ level: settings.logLevel === 'info' ? 'warn' : settings.logLevel })
  const started = performance.now()
  const done = await makeLegacyCopies({ orm, storage, logger, settings: settings.copies.worker }, (counts) => {
    const seconds = Math.round((performance.now() - started) / 1000)
    console.log(`${seconds} s: ${counts.queued} queued, ${counts.ready} ready, ${counts.failed} failed`)
  })
  console.log(
    `Done: every photo has its copies (${done.ready} ready${done.failed > 0 ? `, ${done.failed} failed: staff see why in the session` : ''}).`,
  )
  return 0
}

async function createStaff(orm: Orm, email: string, values: { name?: string; password?: string }): Promise<number> {
  const password = values.password ?? (await askPassword())
  const name = values.name?.trim() || email.split('@')[0]!
  const parsed = NewStaffMember.safeParse({ email: email.trim(), name, password })
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n'))
  // The operator's command makes owners: the first member of a team must be able to manage it.
  const member = await createStaffMember(await authFor(orm), { email: parsed.data.email, name: parsed.data.name, password, role: 'owner' })
  console.log(`Created staff member ${member.email} (${member.id}), an owner. Sign in at POST /api/auth/sign-in/email.`)
  return 0
}

/** The operator's way back in: any member made owner (or anything else), whatever the team's owners. */
async function setRole(orm: Orm, email: string, role: z.output<typeof StaffRole>): Promise<number> {
  const { auth } = await authFor(orm)
  const member = (await listStaffMembers({ auth })).find((candidate) => candidate.email === email.trim().toLowerCase())
  if (!member) {
    console.error(`No staff member has the email ${email.trim().toLowerCase()}.`)
    return 1
  }
  // As `pnpm admin`, no owner acts: the last-owner rule still holds for demotions.
  const updated = await setStaffRole({ auth, staff: undefined, em: orm.em.fork() }, { memberId: member.id, role })
  console.log(`${updated.email} (${updated.id}) is now ${updated.role}.`)
  return 0
}

async function listStaff(orm: Orm): Promise<number> {
  for (const member of await listStaffMembers(await authFor(orm))) {
    console.log(`${member.id}  ${new Date(member.createdAt).toISOString()}  ${member.role.padEnd(7)}  ${member.email}  ${member.name}`)
  }
  return 0
}

/** Better Auth as the service builds it, on the same database, for its password hashing and tables. */
let closeAuth: (() => Promise<void>) | undefined
async function authFor(orm: Orm) {
  const settings = loadSettings()
  const config = resolveConfig(settings, settings.port)
  const created = createAuth(
    {
      secret: await resolveAuthSecret(settings.staffAuth.secret, settings.dataDir),
      publicUrl: config.publicUrl,
      trustedOrigins: config.staffAuth.trustedOrigins,
      secureCookies: false,
    },
    { url: orm.config.get('clientUrl'), timeouts: settings.databaseTimeouts },
    createLogger({ silent: true }),
  )
  closeAuth = created.close
  return { auth: created.auth }
}

/**
 * The password from the terminal, not echoed, typed twice; or the first line of standard input
 * when it is not a terminal (`printf '%s\n' "$PASSWORD" | pnpm admin staff create --email …`).
 */
async function askPassword(): Promise<string> {
  const terminal = process.stdin.isTTY
  const lines = createInterface({ input: process.stdin, output: terminal ? process.stderr : undefined, terminal })
  // What is typed is not written back: only the prompts show.
  let muted = false
  if (terminal)
    (lines as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text) => void (muted || process.stderr.write(text))
  const ask = (prompt: string) =>
    new Promise<string>((resolve) => {
      if (!terminal) return void lines.once('line', resolve).once('close', () => resolve(''))
      muted = false
      lines.question(prompt, (answer) => {
        muted = false
        process.stderr.write('\n')
        resolve(answer)
      })
      muted = true
    })
  try {
    const password = await ask('Password: ')
    if (terminal && (await ask('Again: ')) !== password) throw new UsageError('The passwords differ')
    return password
  } finally {
    lines.close()
  }
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } },
    })
  } catch (error) {
    // An unknown option, or one without its value.
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`)
  }
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parse(argv)
  const command = commandOf(positionals, values)
  const settings = loadSettings()
  const embedded = settings.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: settings.dataDir, port: settings.embeddedPostgresPort, database: 'photobooth', create: false })
  // A command run by hand waits on a long statement (a migration of a large table) as long as it takes.
  const orm = await openOrm(settings.databaseUrl ?? embedded!.url, { timeouts: { ...settings.databaseTimeouts, statementMs: 0 } })
  try {
    return await command.run(orm, await migrate(orm))
  } finally {
    await closeAuth?.()
    await orm.close()
    // Leave a cluster that the running service started alone; stop only one started here.
    if (embedded && !embedded.adopted) await embedded.stop()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(error.message)
      process.exit(2)
    }
    // A refusal of the domain (a taken email) is the operator's to fix: its message is enough.
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  },
)
