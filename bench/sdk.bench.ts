/**
 * What the SDK weighs in a kiosk app: the SDK's published build (`pnpm --filter @photobooth/sdk
 * build`), then a kiosk app that imports what it uses (the client, `safe`, `isDefinedError`,
 * `TimeoutError`) bundled for a browser by esbuild, minified, and gzipped: as
 * test/sdk/sdk-build.test.ts does, with the figures printed.
 *
 *   pnpm bench:sdk                     # or: pnpm bench sdk
 *
 * See bench/README.md.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, gzipSync } from 'node:zlib'

import { build } from 'esbuild'

import { reportRows, verdict } from './rows.js'

const LIMIT = 10 * 1024 // bytes, min+gzip

const sdkDir = fileURLToPath(new URL('../sdk/', import.meta.url))

/** The kiosk app of test/sdk/sdk-build.test.ts. */
const KIOSK_APP = [
  "import { createClient, isDefinedError, safe, TimeoutError } from './dist/index.js'",
  'const client = createClient({ baseUrl: location.origin, timeoutMs: 8000 })',
  "const { set } = await client.kiosk.getContext({ eventSlug: 'demo', setSlug: 'wall' })",
  "const [error, session] = await safe(client.kiosk.registerGuests({ params: { setId: set.id }, body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] } }))",
  'if (isDefinedError(error)) console.log(error.code, error.message, error.requestId)',
  'else if (error instanceof TimeoutError) console.log(error.timeoutMs)',
  'else console.log(session)',
].join('\n')

async function main(): Promise<void> {
  console.log(`SDK size benchmark: node ${process.version}; building the SDK (pnpm --filter @photobooth/sdk build)`)
  const built = spawnSync('pnpm', ['--filter', '@photobooth/sdk', 'build'], { cwd: sdkDir, encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`the SDK build failed (${built.status ?? built.signal}):\n${built.stdout}\n${built.stderr}`)

  const result = await build({
    stdin: { contents: KIOSK_APP, resolveDir: sdkDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
  })
  const bytes = result.outputFiles[0]!.contents
  const gzipped = gzipSync(bytes).length
  const brotli = brotliCompressSync(bytes).length
  // The modules with bytes in the output (tree-shaken ones have none).
  const shipped = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs).filter(([, input]) => input.bytesInOutput > 0)
  const unwanted = shipped.map(([path]) => path).filter((path) => /[/\\](zod|upload|links)\b/.test(path) || path.startsWith('node:'))
  const biggest = shipped
    .sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput)
    .slice(0, 3)
    .map(
      ([path, input]) =>
        `${path.replace(/^.*node_modules[/\\]/, '').replace(/^.*?sdk[/\\]/, '')} ${input.bytesInOutput.toLocaleString('en-US')} B`,
    )
  console.log(`kiosk app bundle: ${bytes.length} B minified, ${gzipped} B gzip, ${brotli} B brotli, ${shipped.length} modules`)
  reportRows([
    {
      row: 'SDK runtime in a kiosk app (esbuild, browser, minified + gzip)',
      value: `${gzipped.toLocaleString('en-US')} B`,
      figures:
        `${bytes.length.toLocaleString('en-US')} B minified, ${brotli.toLocaleString('en-US')} B brotli; ${shipped.length} modules, largest: ${biggest.join(', ')}` +
        (unwanted.length > 0 ? `; SHOULD NOT SHIP: ${unwanted.join(', ')}` : '; no zod, upload helper, link builders or node: modules'),
      target: `≤ ${LIMIT.toLocaleString('en-US')} B`,
      result: verdict(gzipped <= LIMIT && unwanted.length === 0),
    },
  ])
}

try {
  await main()
} catch (error) {
  process.exitCode = 1
  console.error('\nbenchmark failed:', error)
}
