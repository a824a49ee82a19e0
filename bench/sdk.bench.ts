/**
 * What the SDK weighs in a kiosk app: the SDK's published build (`pnpm --filter @photobooth/sdk
 * build`), then kiosk apps that import what they use bundled for a browser by esbuild, minified,
 * and gzipped, with the figures printed: with the kiosk's entry (`@photobooth/sdk/kiosk`, its
 * routes only), with the whole client, and with the offline queue in IndexedDB.
 *
 *   pnpm bench:sdk                     # or: pnpm bench sdk
 *
 * See bench/README.md.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync } from 'node:zlib'

import { bundleApp, gzippedSize, WEIGHED_APPS, type Shipped } from '../test/support/sdk-bundle.js'
import { reportRows, verdict } from './rows.js'
import { answerHolds, runBenchmark } from './support.js'

/** The kiosk entry's target (issue 23); the whole client's, from before the entries. */
const KIOSK_LIMIT = 4 * 1024 // bytes, min+gzip
const WHOLE_LIMIT = 10 * 1024

const sdkDir = fileURLToPath(new URL('../sdk/', import.meta.url))

type Measured = { gzipped: number; minified: number; brotli: number; shipped: Shipped[] }

async function measure(app: string): Promise<Measured> {
  const { output, shipped } = await bundleApp(app)
  return { gzipped: gzippedSize(output), minified: output.length, brotli: brotliCompressSync(output).length, shipped }
}

const bytes = (count: number) => `${count.toLocaleString('en-US')} B`

/** What a row says of a bundle: its sizes, its largest modules, and any module it should not ship. */
function figures({ minified, brotli, shipped }: Measured, unwanted: RegExp): { text: string; clean: boolean } {
  const found = shipped.map(([path]) => path).filter((path) => unwanted.test(path) || path.startsWith('node:'))
  const biggest = [...shipped]
    .sort(([, a], [, b]) => b - a)
    .slice(0, 3)
    .map(([path, size]) => `${path.replace(/^.*node_modules[/\\]/, '').replace(/^.*?sdk[/\\]/, '')} ${bytes(size)}`)
  const text =
    `${bytes(minified)} minified, ${bytes(brotli)} brotli; ${shipped.length} modules, largest: ${biggest.join(', ')}` +
    (found.length > 0 ? `; SHOULD NOT SHIP: ${found.join(', ')}` : '; nothing it should not ship')
  // What a bundle holds is an answer, not a figure: quick mode breaks on it.
  return { text, clean: answerHolds(found.length === 0, `a bundle ships what it should not: ${found.join(', ')}`) }
}

async function main(): Promise<void> {
  console.log(`SDK size benchmark: node ${process.version}; building the SDK (pnpm --filter @photobooth/sdk build)`)
  const built = spawnSync('pnpm', ['--filter', '@photobooth/sdk', 'build'], { cwd: sdkDir, encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`the SDK build failed (${built.status ?? built.signal}):\n${built.stdout}\n${built.stderr}`)

  const kiosk = await measure(WEIGHED_APPS.kiosk)
  const whole = await measure(WEIGHED_APPS.whole)
  const queued = await measure(WEIGHED_APPS.queued)
  // A kiosk ships no zod, no upload helper, no other area's route list.
  const kioskFigures = figures(kiosk, /[/\\](zod|upload|links|error-codes|contract\.json|booth-routes|staff-routes)\b/)
  const wholeFigures = figures(whole, /[/\\](zod|upload|links|error-codes)\b/)
  // Nor the booth's upload code: a kiosk's queue holds registrations only.
  const queuedFigures = figures(queued, /[/\\](zod|upload|contract\.json|booth-routes|staff-routes|queue-file)\b/)
  console.log(`kiosk entry ${kiosk.gzipped} B, whole client ${whole.gzipped} B, kiosk with the offline queue ${queued.gzipped} B (gzip)`)
  reportRows([
    {
      row: 'SDK in a kiosk app, `@photobooth/sdk/kiosk` (esbuild, browser, minified + gzip)',
      value: bytes(kiosk.gzipped),
      figures: kioskFigures.text,
      target: `≤ ${bytes(KIOSK_LIMIT)}`,
      result: verdict(kiosk.gzipped <= KIOSK_LIMIT && kioskFigures.clean),
    },
    {
      row: 'SDK in a kiosk app, the whole client `@photobooth/sdk` (every route)',
      value: bytes(whole.gzipped),
      figures: wholeFigures.text,
      target: `≤ ${bytes(WHOLE_LIMIT)}`,
      result: verdict(whole.gzipped <= WHOLE_LIMIT && wholeFigures.clean),
    },
    {
      row: 'SDK in a kiosk app with the offline queue in IndexedDB (`/kiosk` + `/queue`)',
      value: bytes(queued.gzipped),
      figures: queuedFigures.text,
      target: '(none)',
      result: queuedFigures.clean ? 'info' : 'FAIL',
    },
  ])
}

await runBenchmark(main)
