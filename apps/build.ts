/**
 * Builds the web apps of the workspace: every `apps/<name>` whose package.json has a `build` script
 * (the kiosk, the staff console), each into its own `dist`, which the service serves.
 *
 *   tsx apps/build.ts           # all of them (part of `pnpm build`)
 *   tsx apps/build.ts --stale   # only those whose sources changed since their last build (`pnpm start`,
 *                               # the browser tests): a few milliseconds when nothing did
 *   BUILD_APPS=kiosk tsx apps/build.ts   # only these (comma-separated), e.g. while another app is half-written
 *   tsx apps/build.ts --stale --keep-going   # an app that fails to build is said and left out, the others built
 *                                            # (`pnpm start` and the browser tests: one broken app stops no other)
 *
 * An app is stale when the hash of its sources (its folder without `node_modules` and `dist`) and of
 * the SDK's sources differs from the one its last build wrote into `dist/.build-inputs`.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const apps = fileURLToPath(new URL('./', import.meta.url))
const root = join(apps, '..')
const SKIPPED = new Set(['node_modules', 'dist'])
const STAMP = '.build-inputs'

/** Every file under `folder` (but node_modules and dist), sorted, hashed with its path. */
function hashFolder(hash: ReturnType<typeof createHash>, folder: string): void {
  const files = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter(
      (file) =>
        !relative(folder, file)
          .split(/[\\/]/)
          .some((part) => SKIPPED.has(part)),
    )
    .sort()
  for (const file of files) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0')
}

function inputsOf(app: string): string {
  const hash = createHash('sha256')
  hashFolder(hash, app)
  hashFolder(hash, join(root, 'sdk/src'))
  return hash.digest('hex')
}

/** `only`: these apps (their folder names); all by default, or those of `BUILD_APPS`. `keepGoing`: a failed build is said, not thrown. */
export function buildApps({
  staleOnly,
  keepGoing = false,
  only = process.env.BUILD_APPS?.split(',').map((name) => name.trim()),
}: {
  staleOnly: boolean
  keepGoing?: boolean
  only?: string[]
}): void {
  for (const name of readdirSync(apps).sort()) {
    if (only && !only.includes(name)) continue
    const app = join(apps, name)
    const manifest = join(app, 'package.json')
    if (!existsSync(manifest)) continue
    const { scripts } = JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> }
    if (!scripts?.build) continue
    const inputs = inputsOf(app)
    const stamp = join(app, 'dist', STAMP)
    if (staleOnly && existsSync(stamp) && readFileSync(stamp, 'utf8') === inputs) continue
    console.log(`Building apps/${name}…`)
    const built = spawnSync('pnpm', ['--dir', app, 'run', 'build'], { stdio: 'inherit' })
    if (built.status === 0) writeFileSync(stamp, inputs)
    else if (keepGoing) console.error(`apps/${name}: its build failed (exit ${built.status ?? built.signal}); left out`)
    else throw new Error(`apps/${name}: its build failed (exit ${built.status ?? built.signal})`)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  buildApps({ staleOnly: process.argv.includes('--stale'), keepGoing: process.argv.includes('--keep-going') })
