/**
 * `photobooth-booth`: the booth connector's command line. See README.md beside it.
 *
 *   photobooth-booth folder <folder> --service <url> --set <event>/<set> [--group count:4] …
 *   photobooth-booth dslrbooth --service <url> --set <id> [--listen 8091]
 *   photobooth-booth breeze | sparkbooth <status file> …
 *   photobooth-booth status [--state <folder>]
 *
 * Exit codes, for a service manager: 0 stopped (SIGTERM, SIGINT); 1 a fault (restart it); 2 bad
 * usage or settings; 3 the service refused the booth key or the set (fix the settings first); 4 the
 * state folder is used by another connector.
 */
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { parseArgs } from 'node:util'

import { QueueInUseError } from '@photobooth/sdk/queue-file'

import { Connector, RefusedError, type ConnectorOptions } from './connector.js'
import { createLogger, type Logger } from './log.js'
import { runBreeze } from './modes/breeze.js'
import { runDslrBooth } from './modes/dslrbooth.js'
import { folderHooks, runFolder } from './modes/folder.js'
import { parseGroupRule } from './modes/grouping.js'
import { parseListen } from './modes/listen.js'
import { runSparkbooth } from './modes/sparkbooth.js'
import { status } from './status.js'

export const EXIT = { stopped: 0, fault: 1, usage: 2, refused: 3, inUse: 4 } as const

const VERSION = '0.1.0'

const HELP = `photobooth-booth ${VERSION}: delivers the photos of the booth software you run to your guests' phones.

Usage:
  photobooth-booth folder <folder>        new JPEGs in a folder, grouped into sessions
  photobooth-booth dslrbooth              dslrBooth's URL triggers (Settings > General > Triggers)
  photobooth-booth breeze                 Breeze Booth's post-processing webhook
  photobooth-booth sparkbooth <file>      Sparkbooth's status file
  photobooth-booth status                 what the connector of a state folder is doing

Settings (flags, or a JSON file with --config; flags win):
  --service <url>          the photo booth service (PHOTOBOOTH_SERVICE_URL)
  --set <event>/<set>      the set this booth serves: its slugs, or its id (PHOTOBOOTH_SET)
  --key-file <file>        the booth key's file; else PHOTOBOOTH_BOOTH_KEY (never a flag: it would show in ps)
  --state <folder>         where the journal, the queue and the link files live (default ./photobooth-booth)
  --name <name>            this booth's name in its claims (default: the host name)
  --claim-ttl <seconds>    how long a claimed session stays this booth's (default 900)
  --on-cancel drop|cancel  a session the booth abandons: dropped, or its guests' session cancelled too
  --json                   log one JSON object a line
  --no-qr                  do not print the gallery link's QR code
  folder:     --group count:<n>|idle:<s>|marker:<name> (default count:4)  --stable <s> (default 2)
              --after leave|move (default leave)  --session-pattern <regex with a (?<session>…) group>
  dslrbooth:  --listen [<host>:]<port> (default 8091)  --files originals|final|both (default both)  --stable <s> (default 1)
  breeze:     --listen [<host>:]<port> (default 8092)  --group idle:<s>|count:<n> (default idle:30)
  sparkbooth: --stable <s> (default 1)

Exit codes: 0 stopped, 1 fault, 2 bad settings, 3 key or set refused, 4 state folder in use.
`

const OPTIONS = {
  service: { type: 'string' },
  set: { type: 'string' },
  'key-file': { type: 'string' },
  state: { type: 'string' },
  config: { type: 'string' },
  name: { type: 'string' },
  'claim-ttl': { type: 'string' },
  'on-cancel': { type: 'string' },
  json: { type: 'boolean' },
  'no-qr': { type: 'boolean' },
  group: { type: 'string' },
  stable: { type: 'string' },
  after: { type: 'string' },
  'session-pattern': { type: 'string' },
  listen: { type: 'string' },
  files: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const

class UsageError extends Error {}

/** A setting's parser's refusal is the operator's to fix: exit 2, not a fault. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} ${value}: expected ${allowed.join(' or ')}`)
  return value as T
}

function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!Number.isFinite(number) || number < 0) throw new UsageError(`--${name} ${value}: expected a number of seconds`)
  return number
}

/**
 * `--set -Ab3…` as `--set=-Ab3…`: an id may begin with a dash (one in 64 do), which parseArgs would
 * otherwise take for an option and refuse.
 */
function joinDashValues(argv: string[]): string[] {
  const joined: string[] = []
  for (let index = 0; index < argv.length; index++) {
    const name = argv[index]!.replace(/^--/, '')
    const value = argv[index + 1]
    const takesValue = argv[index]!.startsWith('--') && (OPTIONS as Record<string, { type: string }>)[name]?.type === 'string'
    if (takesValue && value?.startsWith('-') && !(value.replace(/^--/, '') in OPTIONS) && value !== '-h') {
      joined.push(`--${name}=${value}`)
      index++
    } else joined.push(argv[index]!)
  }
  return joined
}

function settings(argv: string[]) {
  const { values, positionals } = parseArgs({ args: joinDashValues(argv), options: OPTIONS, allowPositionals: true, strict: true })
  const file = values.config ? (JSON.parse(readFileSync(values.config, 'utf8')) as Record<string, string | boolean | undefined>) : {}
  const pick = (name: keyof typeof OPTIONS, camel = name.replace(/-(.)/g, (_, c: string) => c.toUpperCase())) =>
    (values[name] as string | undefined) ?? (file[camel] as string | undefined) ?? (file[name] as string | undefined)
  return { values, positionals, pick, file }
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals, pick, file } = settings(argv)
  if (values.version) return (void process.stdout.write(`${VERSION}\n`), EXIT.stopped)
  const [command, argument] = positionals
  if (values.help || !command) return (void process.stdout.write(HELP), values.help ? EXIT.stopped : EXIT.usage)
  const state = pick('state') ?? './photobooth-booth'
  const json = values.json ?? file.json === true
  if (command === 'status') return status(state, json)
  if (!['folder', 'dslrbooth', 'breeze', 'sparkbooth'].includes(command)) throw new UsageError(`unknown command ${command}`)
  if ((command === 'folder' || command === 'sparkbooth') && !argument)
    throw new UsageError(`${command} needs its ${command === 'folder' ? 'folder' : 'status file'}`)

  const service = pick('service') ?? process.env.PHOTOBOOTH_SERVICE_URL
  const set = pick('set') ?? process.env.PHOTOBOOTH_SET
  const keyFile = pick('key-file')
  const boothKey = (keyFile ? readFileSync(keyFile, 'utf8') : (process.env.PHOTOBOOTH_BOOTH_KEY ?? '')).trim()
  if (!service || !/^https?:\/\//.test(service))
    throw new UsageError('--service <url> (or PHOTOBOOTH_SERVICE_URL) is required: http(s)://…')
  if (!set) throw new UsageError('--set <event slug>/<set slug> or <set id> (or PHOTOBOOTH_SET) is required')
  if (!boothKey) throw new UsageError('a booth key is required: --key-file <file>, or PHOTOBOOTH_BOOTH_KEY')

  const logger = createLogger({ json })
  const group = asUsage(() => parseGroupRule(pick('group') ?? (command === 'breeze' ? 'idle:30' : 'count:4')))
  const stableSeconds = seconds('stable', pick('stable'), command === 'folder' ? 2 : 1)
  const sessionPattern = pick('session-pattern')
  const folder =
    command === 'folder'
      ? {
          folder: argument!,
          group,
          stableSeconds,
          after: oneOf('after', pick('after'), ['leave', 'move'] as const, 'leave'),
          ...(sessionPattern !== undefined && { sessionPattern: new RegExp(sessionPattern) }),
        }
      : undefined
  const options: ConnectorOptions = {
    serviceUrl: service,
    boothKey,
    set,
    state,
    holder: pick('name') ?? hostname(),
    claimTtlSeconds: seconds('claim-ttl', pick('claim-ttl'), 900),
    onCancel: oneOf('on-cancel', pick('on-cancel'), ['drop', 'cancel'] as const, 'drop'),
    logger,
    showQr: !json && !values['no-qr'] && process.stdout.isTTY === true,
    mode: command,
    ...(folder && folderHooks(folder)),
  }
  const connector = new Connector(options)
  try {
    await connector.start()
  } catch (error) {
    if (error instanceof QueueInUseError) {
      logger.error('state.in-use', `the state folder ${state} is used by another connector (${error.message})`)
      return EXIT.inUse
    }
    throw error
  }
  logger.info('started', `photobooth-booth ${VERSION}: ${command} mode, set ${set}, service ${service}, state ${state}`)

  const stopMode = await startMode(command, argument, { connector, logger, state, group, stableSeconds, folder, pick })
  const stopped = new Promise<number>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        logger.info('stopping', `${signal}: stopping; what waits stays journaled for the next start`)
        resolve(EXIT.stopped)
      })
  })
  const ended = await Promise.race([
    stopped,
    connector.finished().then(
      () => EXIT.stopped,
      (error: unknown) => {
        if (error instanceof RefusedError) {
          logger.error('refused', error.message)
          return EXIT.refused
        }
        logger.error('fault', error instanceof Error ? error.message : String(error))
        return EXIT.fault
      },
    ),
  ])
  await stopMode()
  await connector.stop()
  return ended
}

async function startMode(
  command: string,
  argument: string | undefined,
  context: {
    connector: Connector
    logger: Logger
    state: string
    group: ReturnType<typeof parseGroupRule>
    stableSeconds: number
    folder: Parameters<typeof runFolder>[1] | undefined
    pick: (name: keyof typeof OPTIONS) => string | undefined
  },
): Promise<() => Promise<void>> {
  const { connector, logger, state, group, stableSeconds, pick } = context
  switch (command) {
    case 'folder':
      return runFolder(connector, context.folder!, logger)
    case 'dslrbooth':
      return runDslrBooth(
        connector,
        {
          address: asUsage(() => parseListen(pick('listen') ?? '8091')),
          files: oneOf('files', pick('files'), ['originals', 'final', 'both'] as const, 'both'),
          stableSeconds,
        },
        logger,
      )
    case 'breeze':
      return runBreeze(connector, { address: asUsage(() => parseListen(pick('listen') ?? '8092')), group, state }, logger)
    default:
      return runSparkbooth(connector, { statusFile: argument!, state, stableSeconds }, logger)
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    process.stderr.write(
      `photobooth-booth: ${error instanceof Error ? error.message : String(error)}\n${usage ? 'See photobooth-booth --help.\n' : ''}`,
    )
    process.exit(usage || error instanceof SyntaxError ? EXIT.usage : EXIT.fault)
  },
)
