import { gzipSync } from 'node:zlib'

import { build } from 'esbuild'

import { sdkDir } from './sdk-package.js'

/**
 * A kiosk app that imports only what it uses from the built SDK (`sdk/dist`): a client, `safe`,
 * `isDefinedError` and `TimeoutError`; what test/sdk/sdk-build.test.ts checks and `pnpm bench sdk`
 * weighs. `client` is the entry's factory, `entry` its file in dist (`index`, `kiosk`).
 */
export const kioskApp = (client: string, entry: string) =>
  [
    `import { ${client}, isDefinedError, safe, TimeoutError } from './dist/${entry}.js'`,
    `const client = ${client}({ baseUrl: location.origin, timeoutMs: 8000 })`,
    "const { set } = await client.kiosk.getContext({ eventSlug: 'demo', setSlug: 'wall' })",
    "const [error, session] = await safe(client.kiosk.registerGuests({ params: { setId: set.id }, body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] } }))",
    'if (isDefinedError(error)) console.log(error.code, error.message, error.requestId)',
    'else if (error instanceof TimeoutError) console.log(error.timeoutMs)',
    'else console.log(session)',
  ].join('\n')

/** A module of the bundle and the bytes it has in the output (tree-shaken ones are left out). */
export type Shipped = [path: string, bytesInOutput: number]

/** An app's code bundled with the built SDK for a browser by esbuild, minified: its bytes and what it ships. */
export async function bundleApp(contents: string): Promise<{ output: Uint8Array; shipped: Shipped[] }> {
  const result = await build({
    stdin: { contents, resolveDir: sdkDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
  })
  const shipped = Object.entries(Object.values(result.metafile.outputs)[0]!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path, input]): Shipped => [path, input.bytesInOutput])
  return { output: result.outputFiles[0]!.contents, shipped }
}

/** The same kiosk with the offline queue in IndexedDB and its count on screen. */
export const QUEUED_KIOSK_APP = [
  "import { createKioskClient } from './dist/kiosk.js'",
  "import { createOfflineQueue, indexedDbStore } from './dist/queue.js'",
  'const queue = createOfflineQueue({ client: createKioskClient({ baseUrl: location.origin }), store: indexedDbStore() })',
  "queue.on('sent', ({ count }) => console.log(count + ' waiting'))",
  "console.log(await queue.registerGuests({ params: { setId: 'x' }, body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] } }))",
].join('\n')

/**
 * The kiosk apps whose SDK `pnpm bench sdk` weighs and the documents state (sdk/README.md,
 * docs/api.md, bench/README.md): on the kiosk entry, on the whole client, with the offline queue.
 */
export const WEIGHED_APPS = {
  kiosk: kioskApp('createKioskClient', 'kiosk'),
  whole: kioskApp('createClient', 'index'),
  queued: QUEUED_KIOSK_APP,
} as const

/** What a weighed app's SDK comes to: minified and gzipped (default level), the figure every document states. */
export const gzippedSize = (output: Uint8Array) => gzipSync(output).length
