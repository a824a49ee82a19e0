import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { bundleApp, gzippedSize, kioskApp, WEIGHED_APPS } from '../support/sdk-bundle.js'

const sdkDir = resolve(import.meta.dirname, '../../sdk')
const run = promisify(execFile)

let app: TestServer

/** An app bundled with the built SDK: its bytes and the paths of the modules it ships. */
async function bundlePaths(contents: string): Promise<{ output: Uint8Array; shipped: string[] }> {
  const { output, shipped } = await bundleApp(contents)
  return { output, shipped: shipped.map(([path]) => path) }
}

beforeAll(async () => {
  // The published build: the package's own build script.
  await run('pnpm', ['--filter', '@photobooth/sdk', 'build'], { cwd: sdkDir })
  app = await startTestServer()
}, 120_000)
afterAll(() => app?.stop())

describe('the built SDK package', () => {
  it('when bundled whole, then it ships the minified contract and no zod', async () => {
    const { shipped, output } = await bundlePaths("export * from './dist/index.js'")
    expect(shipped.some((input) => input.endsWith('generated/contract.json'))).toBe(true)
    expect(shipped.filter((input) => /[/\\]zod[/\\]/.test(input))).toEqual([])
    const gzipped = gzipSync(output).length
    expect(gzipped).toBeLessThan(20 * 1024)
  })

  it('when a kiosk app is bundled for a browser, then the SDK it ships is at most 10 KB min+gzip, without the upload helper or Node modules', async () => {
    const { shipped, output } = await bundlePaths(kioskApp('createClient', 'index'))
    expect(shipped.filter((input) => /[/\\](zod|upload|links)\b/.test(input) || input.startsWith('node:'))).toEqual([])
    expect(shipped.some((input) => input.endsWith('generated/contract.json'))).toBe(true)
    expect(gzipSync(output).length).toBeLessThanOrEqual(10 * 1024)
  })

  it('when a kiosk app uses the kiosk entry, then its bundle carries the kiosk routes only: no staff, booth or gallery route, no zod, no upload helper', async () => {
    const { shipped, output } = await bundlePaths(
      [
        "import { createKioskClient, safe } from './dist/kiosk.js'",
        'const client = createKioskClient({ baseUrl: location.origin })',
        "console.log(await safe(client.kiosk.getContext({ eventSlug: 'demo', setSlug: 'wall' })))",
      ].join('\n'),
    )
    expect(shipped.filter((input) => /[/\\](zod|upload|error-codes|contract\.json|booth-routes|staff-routes)\b/.test(input))).toEqual([])
    // Nor oRPC's error class and its helpers (ApiError joins oRPC's registry instead of extending it).
    expect(shipped.filter((input) => /[/\\]@orpc[/\\]/.test(input))).toEqual([])
    const code = new TextDecoder().decode(output)
    expect(code).toContain('/sets/{setId}/sessions')
    for (const path of ['/staff/', '/booth/', '/gallery/', '/api/auth/']) expect(code).not.toContain(path)
  })

  it('when the documents state what the SDK weighs, then sdk/README.md, docs/api.md and bench/README.md state one set of figures, within 2 % of what pnpm bench sdk measures now', async () => {
    const measured = Object.fromEntries(
      await Promise.all(
        Object.entries(WEIGHED_APPS).map(async ([app, code]) => [app, gzippedSize((await bundleApp(code)).output)] as const),
      ),
    )
    const bytes = (text: string | undefined) => Number(text?.replaceAll(',', ''))
    const read = (path: string) => readFile(resolve(sdkDir, '..', path), 'utf8')
    // The sentence of each guide, and the rows `pnpm bench sdk` printed (bench/README.md's table).
    const sentence =
      /bundles ([\d,]+) B of SDK minified and\s+gzipped.*?on the whole client ([\d,]+) B,\s+and with the offline queue\s+([\d,]+) B/s
    const stated: Record<string, { kiosk: number; whole: number; queued: number }> = {}
    for (const path of ['sdk/README.md', 'docs/api.md']) {
      const found = sentence.exec(await read(path))
      expect(found, `${path} states the three figures`).not.toBeNull()
      stated[path] = { kiosk: bytes(found![1]), whole: bytes(found![2]), queued: bytes(found![3]) }
    }
    const bench = await read('bench/README.md')
    const row = (words: string) => bytes(new RegExp(`^\\| sdk +\\| ${words}[^|]*\\| +([\\d,]+) B \\|`, 'm').exec(bench)?.[1])
    stated['bench/README.md'] = {
      kiosk: row('SDK in a kiosk app, `@photobooth/sdk/kiosk`'),
      whole: row('SDK in a kiosk app, the whole client'),
      queued: row('SDK in a kiosk app with the offline queue'),
    }
    expect(stated['docs/api.md']).toEqual(stated['sdk/README.md'])
    expect(stated['bench/README.md']).toEqual(stated['sdk/README.md'])
    for (const [app, size] of Object.entries(stated['sdk/README.md']!)) {
      // A change of the SDK that moves one by more than 2 %: run `pnpm bench sdk` and write its figures in the three documents.
      expect(Math.abs(size - measured[app]!) / measured[app]!, `${app}: stated ${size} B, measured ${measured[app]} B`).toBeLessThanOrEqual(
        0.02,
      )
    }
  })

  it('when its types are read, then the client and the contract types are declared', async () => {
    const types = await readFile(resolve(sdkDir, 'dist/index.d.ts'), 'utf8')
    expect(types).toMatch(/export declare function createClient\(options: ClientOptions\): PhotoBoothClient/)
    expect(types).toMatch(/export type PhotoBoothClient = /)
    expect(types).toMatch(/ApiError, .*NetworkError, .*TimeoutError/)
    expect(await readFile(resolve(sdkDir, 'dist/errors.d.ts'), 'utf8')).toMatch(
      /export declare class ApiError<TCode extends string = string, TData = unknown> extends Error implements ORPCError<TCode, TData>/,
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

    // The kiosk entry's errors are ORPCErrors to oRPC itself, though that entry ships none of its code.
    const kiosk = await import(pathToFileURL(resolve(sdkDir, 'dist/kiosk.js')).href)
    const [kioskError, , isDefined] = await kiosk.safe(
      kiosk.createKioskClient({ baseUrl: app.url }).kiosk.getContext({ eventSlug: 'no', setSlug: 'no' }),
    )
    expect([isDefined, kioskError.code, kioskError.status, kioskError.message]).toEqual([true, 'NOT_FOUND', 404, 'no such set'])
    expect(kioskError).toBeInstanceOf(sdk.ORPCError)
    expect(kioskError.toJSON()).toEqual({
      defined: true,
      code: 'NOT_FOUND',
      status: 404,
      message: 'no such set',
      data: { code: 'no_such_set' },
    })
  })
})
