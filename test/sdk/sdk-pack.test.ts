import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { packSdk, repo, run, sdkDir, unpack, type Packer } from '../support/sdk-package.js'

/**
 * The SDK as a third party gets it: packed by pnpm and by npm (each runs the package's own
 * `prepack`: build, then the published manifest) from a copy of sdk/ beside the repo's tsconfig and
 * node_modules, so that the workspace's manifest and dist never change under the tests running
 * beside this one; installed from the tarball into an empty project
 * outside the repo (dependencies from the npm registry, the local caches first), then used from
 * plain JavaScript against a live server and compiled from strict TypeScript with
 * `skipLibCheck: false`. The README's ```ts examples are compiled there too.
 */

const tsc = join(repo, 'node_modules/.bin/tsc')
const PUBLINT = { bin: 'publint', spec: 'publint@0.3.25' }
const ATTW = { bin: 'attw', spec: '@arethetypeswrong/cli@0.18.5' }
const PACKERS = ['pnpm', 'npm'] as const
const SLOW = 300_000
/** The per-area entries and the offline queue's, between the main one and the contract's. */
const ENTRIES = ['kiosk', 'booth', 'staff', 'queue', 'queue-file']

/** A linter from the workspace when it is a devDependency, else that exact version from the registry. */
const tool = (name: { bin: string; spec: string }, args: string[], cwd: string) => {
  const local = join(repo, 'node_modules/.bin', name.bin)
  return existsSync(local) ? run(local, args, cwd) : run('npm', ['exec', '--yes', `--package=${name.spec}`, '--', name.bin, ...args], cwd)
}

const rootManifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
const readmeExamples = [...(await readFile(join(sdkDir, 'README.md'), 'utf8')).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(
  (match) => match[1]!,
)

let work: string
/** The copy of sdk/ that is packed. */
let packDir: string
let manifestBefore: string
let app: TestServer
let seeded: Awaited<ReturnType<typeof seedEvent>>
let tarballs: Record<Packer, string>

beforeAll(async () => {
  manifestBefore = await readFile(join(sdkDir, 'package.json'), 'utf8')
  work = await mkdtemp(join(tmpdir(), 'photobooth-sdk-pack-'))
  ;({ packDir, tarballs } = await packSdk(work, PACKERS))
  app = await startTestServer()
  seeded = await seedEvent(app.orm)
}, SLOW)

afterAll(async () => {
  await app?.stop()
  if (work) await rm(work, { recursive: true, force: true })
})

it('when packed, then the workspace manifest is left as it was', async () => {
  expect(await readFile(join(packDir, 'package.json'), 'utf8')).toBe(manifestBefore)
  expect(existsSync(join(packDir, '.package.dev.json'))).toBe(false)
})

it('when the README is read, then it has kiosk, booth and staff examples to compile', () => {
  expect(readmeExamples.length).toBeGreaterThanOrEqual(3)
  expect(readmeExamples.some((code) => code.includes('client.kiosk.registerGuests'))).toBe(true)
  expect(readmeExamples.some((code) => code.includes('uploadPhotos(booth'))).toBe(true)
  expect(readmeExamples.some((code) => code.includes('staff.auth.signIn'))).toBe(true)
})

it('when the README says how to install it, then it says what this file does: pnpm pack in sdk/, then npm install of the tarball pnpm names', async () => {
  const readme = await readFile(join(sdkDir, 'README.md'), 'utf8')
  const install = /^## Install\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? ''
  const packed = /^cd sdk && pnpm pack --pack-destination (\S+)$/m.exec(install)
  expect(packed, install).not.toBeNull()
  expect(install).toMatch(/^pnpm install$/m)
  const version = (JSON.parse(manifestBefore) as { version: string }).version
  // The name pnpm gave the tarball this file installs, with the README's `<version>` for its version.
  expect(install).toContain(`npm install ${packed![1]}/${basename(tarballs.pnpm).replace(version, '<version>')}`)
  // Without a publish workflow the README's npm line would be a 404: the workflow it names publishes with provenance.
  const workflow = await readFile(join(repo, '.github/workflows/release-sdk.yml'), 'utf8')
  expect(readme).toContain('.github/workflows/release-sdk.yml')
  expect(workflow).toMatch(/id-token: write/)
  expect(workflow).toMatch(/uses: changesets\/action@v1/)
  expect(await readFile(join(repo, '.github/publish-sdk.sh'), 'utf8')).toMatch(/^\(cd sdk && npm publish --provenance --access public\)$/m)
})

/** Each tarball's files, and the empty project it is installed into. */
const unpackedOf = {} as Record<Packer, string>
const consumerOf = {} as Record<Packer, string>

describe.each(PACKERS)('the tarball %s packs', (packer) => {
  let unpacked: string
  let consumer: string

  it('when listed, then it holds the built files, README, LICENSE and changelog, and no source', async () => {
    const { stdout } = await run('tar', ['-tzf', tarballs[packer]], work)
    const files = stdout
      .split('\n')
      .filter(Boolean)
      .map((path) => path.replace(/^package\//, ''))
    expect(files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']),
    )
    expect(files.filter((path) => !/^(dist\/.+\.(js|d\.ts|json)|package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(path))).toEqual([])
    expect(files.filter((path) => /\.test\./.test(path))).toEqual([])

    unpacked = join(work, `${packer}-unpacked`)
    unpackedOf[packer] = unpacked
    await unpack(tarballs[packer], unpacked)
    expect(await readFile(join(unpacked, 'LICENSE'), 'utf8')).toMatch(/^MIT License/)
    expect(await readFile(join(unpacked, 'CHANGELOG.md'), 'utf8')).toMatch(/^## \d+\.\d+\.\d+/m)
  })

  it('when its manifest is read, then exports point at built files with their types, ESM only', async () => {
    const manifest = JSON.parse(await readFile(join(unpacked, 'package.json'), 'utf8'))
    const sdkManifest = JSON.parse(manifestBefore)
    expect(manifest).toMatchObject({
      name: '@photobooth/sdk',
      version: sdkManifest.version,
      type: 'module',
      license: 'MIT',
      sideEffects: false,
    })
    expect(manifest.engines.node).toBe(sdkManifest.engines.node)
    expect(manifest.dependencies).toEqual(sdkManifest.dependencies)
    // Types for `skipLibCheck: false`: oRPC's declarations import them.
    expect(manifest.dependencies['@opentelemetry/api']).toBeDefined()
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      ...ENTRIES.map((entry) => `./${entry}`),
      './contract',
      './schemas',
      './package.json',
    ])
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (entry === './package.json') continue
      expect(Object.keys(target as object)).toEqual(['types', 'default'])
      for (const path of Object.values(target as Record<string, string>)) {
        expect(path).toMatch(/^\.\/dist\//)
        expect(existsSync(join(unpacked, path))).toBe(true)
      }
    }
  })

  it(
    'when linted, then publint and arethetypeswrong find nothing (ESM only: no node10 or require entry)',
    async () => {
      const publint = await tool(PUBLINT, ['run', tarballs[packer], '--strict'], work)
      expect(publint.stdout).toContain('All good!')
      // `esm-only` leaves out the node10 and CommonJS resolutions; ESM in Node, and bundlers, must be clean.
      // It exits non-zero on any problem that is not ignored; its table (a row per resolution, a column
      // per entry point) shows every entry point resolved, with its types, in Node's ESM and in bundlers.
      const attw = await tool(ATTW, [tarballs[packer], '--profile', 'esm-only', '--format', 'table', '--no-color', '--no-emoji'], work)
      const rows = Object.fromEntries(
        attw.stdout
          .split('\n')
          .filter((line) => line.startsWith('│'))
          .map((line) => line.split('│').map((cell) => cell.trim()))
          .map((cells) => [cells[1], cells.slice(2, -1)]),
      )
      const modules = ['', ...ENTRIES, 'contract', 'schemas'].map((entry) => `"@photobooth/sdk${entry && `/${entry}`}"`)
      expect(rows['']).toEqual([...modules, '"@photobooth/sdk/package.json"'])
      expect(rows['node16 (from ESM)']).toEqual([...modules.map(() => 'OK (ESM)'), 'OK (JSON)'])
      expect(rows['bundler']).toEqual([...modules.map(() => 'OK'), 'OK (JSON)'])
    },
    SLOW,
  )

  it(
    'when installed into an empty project, then it installs with its dependencies',
    async () => {
      consumer = join(work, `${packer}-app`)
      consumerOf[packer] = consumer
      await mkdir(consumer)
      await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }))
      const packages = [tarballs[packer], `@types/node@${rootManifest.devDependencies['@types/node']}`]
      if (packer === 'npm') await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], consumer)
      else await run('pnpm', ['add', '--prefer-offline', ...packages], consumer)
      expect(existsSync(join(consumer, 'node_modules/@photobooth/sdk/dist/index.js'))).toBe(true)
    },
    SLOW,
  )

  it(
    'when used from plain JavaScript, by import and by require, then it reads a kiosk context from a live server',
    async () => {
      const set = seeded.sets[0]!
      const slug = seeded.event.slug
      await writeFile(
        join(consumer, 'kiosk.mjs'),
        [
          "import { createClient } from '@photobooth/sdk'",
          "import { contract } from '@photobooth/sdk/contract'",
          'const [baseUrl, eventSlug, setSlug] = process.argv.slice(2)',
          'const client = createClient({ baseUrl })',
          'const { event, set } = await client.kiosk.getContext({ eventSlug, setSlug })',
          "const sdk = await import('@photobooth/sdk')",
          "const { version } = (await import('@photobooth/sdk/package.json', { with: { type: 'json' } })).default",
          'console.log(JSON.stringify({ event: event.slug, set: set.id, contract: typeof contract.kiosk.getContext, version, sent: sdk.SDK_VERSION ?? version }))',
        ].join('\n'),
      )
      const { stdout } = await run('node', ['kiosk.mjs', app.url, slug, set.slug], consumer)
      const version = JSON.parse(manifestBefore).version
      // The version the client reports (its `x-photobooth-sdk` header) is the tarball's own.
      expect(JSON.parse(stdout)).toEqual({ event: slug, set: set.id, contract: 'object', version, sent: version })

      // Node ^20.19 and >=22.12 (the package's engines) load ES modules with require().
      await writeFile(
        join(consumer, 'kiosk.cjs'),
        [
          "const { createClient } = require('@photobooth/sdk')",
          'const [baseUrl, eventSlug, setSlug] = process.argv.slice(2)',
          'createClient({ baseUrl }).kiosk.getContext({ eventSlug, setSlug }).then(({ set }) => console.log(JSON.stringify({ set: set.id })))',
        ].join('\n'),
      )
      const required = await run('node', ['--no-warnings', 'kiosk.cjs', app.url, slug, set.slug], consumer)
      expect(JSON.parse(required.stdout)).toEqual({ set: set.id })
    },
    SLOW,
  )
})

it('when both tarballs are unpacked, then they hold the same built files, byte for byte (so one is compiled below)', async () => {
  const files = async (dir: string) =>
    Object.fromEntries(
      await Promise.all(
        (await readdir(join(dir, 'dist'), { recursive: true }))
          .sort()
          .map(async (path) => [path, await readFile(join(dir, 'dist', path)).catch(() => 'a folder')] as const),
      ),
    )
  expect(await files(unpackedOf.npm)).toEqual(await files(unpackedOf.pnpm))
})

it(
  'when the pnpm tarball is compiled from strict TypeScript with skipLibCheck off, for Node (node16) and for a bundler (DOM), then the README examples and a typed use compile',
  async () => {
    const sources = ['usage.ts']
    await writeFile(
      join(consumerOf.pnpm, 'usage.ts'),
      [
        "import { createClient, isDefinedError, safe, type PhotoBoothClient } from '@photobooth/sdk'",
        "import { contract } from '@photobooth/sdk/contract'",
        "import * as schemas from '@photobooth/sdk/schemas'",
        '',
        "const client: PhotoBoothClient = createClient({ baseUrl: 'http://localhost:3000' })",
        "const { set } = await client.kiosk.getContext({ eventSlug: 'demo', setSlug: 'photo-wall' })",
        'const setId: string = set.id',
        "// @ts-expect-error: the contract's input types reach the consumer (setSlug is missing)",
        "await client.kiosk.getContext({ eventSlug: 'demo' })",
        "const [error] = await safe(client.kiosk.registerGuests({ params: { setId }, body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] } }))",
        'if (isDefinedError(error)) { const code: string = error.code; void code }',
        'void contract.kiosk.getContext',
        'void schemas',
        'export {}',
      ].join('\n'),
    )
    for (const [index, code] of readmeExamples.entries()) {
      sources.push(`readme-${index + 1}.ts`)
      await writeFile(join(consumerOf.pnpm, `readme-${index + 1}.ts`), `${code}\nexport {}\n`)
    }
    const strict = {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'ES2022',
      noUncheckedIndexedAccess: true,
      isolatedModules: true,
    }
    const configs = {
      // A Node project: no DOM, Node's own types.
      'tsconfig.node16.json': { ...strict, module: 'node16', moduleResolution: 'node16', lib: ['ES2023'], types: ['node'] },
      // A kiosk page built by a bundler: the DOM, no Node types.
      'tsconfig.bundler.json': {
        ...strict,
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: [],
      },
    }
    for (const [name, compilerOptions] of Object.entries(configs)) {
      await writeFile(join(consumerOf.pnpm, name), JSON.stringify({ compilerOptions, files: sources }, null, 2))
      const { stdout } = await run(tsc, ['-p', name], consumerOf.pnpm)
      expect(stdout).toBe('')
    }
  },
  SLOW,
)
