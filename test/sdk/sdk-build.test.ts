import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'

import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'

const sdkDir = resolve(import.meta.dirname, '../../sdk')
const run = promisify(execFile)

let app: TestServer
beforeAll(async () => {
  // The published build: the package's own build script.
  await run('pnpm', ['--filter', '@photobooth/sdk', 'build'], { cwd: sdkDir })
  app = await startTestServer()
}, 120_000)
afterAll(() => app?.stop())

describe('the built SDK package', () => {
  it('when bundled whole, then it ships the minified contract and no zod', async () => {
    const result = await build({
      entryPoints: [resolve(sdkDir, 'dist/index.js')],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.some((input) => input.endsWith('generated/contract.json'))).toBe(true)
    expect(inputs.filter((input) => /[/\\]zod[/\\]/.test(input))).toEqual([])
    const gzipped = gzipSync(result.outputFiles[0]!.contents).length
    expect(gzipped).toBeLessThan(20 * 1024)
  })

  it('when a kiosk app is bundled for a browser, then the SDK it ships is at most 10 KB min+gzip, without the upload helper or Node modules', async () => {
    // A kiosk app that imports only what it uses: the client and the error helpers.
    const kioskApp = [
      "import { createClient, isDefinedError, safe, TimeoutError } from './dist/index.js'",
      'const client = createClient({ baseUrl: location.origin, timeoutMs: 8000 })',
      "const { set } = await client.kiosk.getContext({ eventSlug: 'demo', setSlug: 'wall' })",
      "const [error, session] = await safe(client.kiosk.registerGuests({ params: { setId: set.id }, body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] } }))",
      'if (isDefinedError(error)) console.log(error.code, error.message, error.requestId)',
      'else if (error instanceof TimeoutError) console.log(error.timeoutMs)',
      'else console.log(session)',
    ].join('\n')
    const result = await build({
      stdin: { contents: kioskApp, resolveDir: sdkDir, loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
    })
    // What the bundle holds: the modules with bytes in its output (tree-shaken ones have none).
    const shipped = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path)
    expect(shipped.filter((input) => /[/\\](zod|upload|links)\b/.test(input) || input.startsWith('node:'))).toEqual([])
    expect(shipped.some((input) => input.endsWith('generated/contract.json'))).toBe(true)
    const gzipped = gzipSync(result.outputFiles[0]!.contents).length
    expect(gzipped).toBeLessThanOrEqual(10 * 1024)
  })

  it('when a kiosk app uses the kiosk entry, then its bundle carries the kiosk routes only: no staff, booth or gallery route, no zod, no upload helper', async () => {
    const result = await build({
      stdin: {
        contents: [
          "import { createKioskClient, safe } from './dist/kiosk.js'",
          'const client = createKioskClient({ baseUrl: location.origin })',
          "console.log(await safe(client.kiosk.getContext({ eventSlug: 'demo', setSlug: 'wall' })))",
        ].join('\n'),
        resolveDir: sdkDir,
        loader: 'js',
      },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
    })
    const shipped = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path)
    expect(shipped.filter((input) => /[/\\](zod|upload|contract\.json|booth-routes|staff-routes)\b/.test(input))).toEqual([])
    const code = result.outputFiles[0]!.text
    expect(code).toContain('/sets/{setId}/sessions')
    for (const path of ['/staff/', '/booth/', '/gallery/', '/api/auth/']) expect(code).not.toContain(path)
  })

  it('when its types are read, then the client and the contract types are declared', async () => {
    const types = await readFile(resolve(sdkDir, 'dist/index.d.ts'), 'utf8')
    expect(types).toMatch(/export declare function createClient\(options: ClientOptions\): PhotoBoothClient/)
    expect(types).toMatch(/export type PhotoBoothClient = /)
    expect(types).toMatch(/ApiError, .*NetworkError, TimeoutError/)
    expect(await readFile(resolve(sdkDir, 'dist/errors.d.ts'), 'utf8')).toMatch(
      /export declare class ApiError<TCode extends string = string, TData = unknown> extends ORPCError<TCode, TData>/,
    )
    const contractTypes = await readFile(resolve(sdkDir, 'dist/contract/kiosk.d.ts'), 'utf8')
    expect(contractTypes).toMatch(/registerGuests/)
  })

  it('when imported as built and called, then it talks to a live server', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const sdk = await import(pathToFileURL(resolve(sdkDir, 'dist/index.js')).href)
    const client = sdk.createClient({ baseUrl: app.url })
    const context = await client.kiosk.getContext({ eventSlug: event.slug, setSlug: sets[0]!.slug })
    expect(context.set.id).toBe(sets[0]!.id)
    const [error] = await sdk.safe(
      client.kiosk.registerGuests({ params: { setId: 'nope' }, body: { guests: [{ name: 'A', email: 'a@b.co' }] } }),
    )
    expect(sdk.isDefinedError(error) && error.code).toBe('NOT_FOUND')
  })
})
