/**
 * `pnpm build`: the server as plain JavaScript for `node server/dist/main.js` (and
 * `node server/dist/admin.js`), no TypeScript compiler at run time. Our code and the SDK's contract
 * (a workspace package of TypeScript sources) are bundled; every other dependency stays an import
 * of server/node_modules. The gallery pages' files are copied beside the bundle, where
 * `new URL('./assets/…', import.meta.url)` finds them from the bundle as from the sources.
 * `tsx server/build.ts <folder>` builds into another folder (a test's), which then needs a
 * `node_modules` beside it.
 */
import { cp, readFile, rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

import { build } from 'esbuild'

const root = new URL('./', import.meta.url)
const out = process.argv[2] ? pathToFileURL(`${resolve(process.argv[2])}/`) : new URL('dist/', root)
const manifest = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
  dependencies: Record<string, string>
  optionalDependencies?: Record<string, string>
}
const external = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })
  .filter((name) => name !== '@photobooth/sdk')
  .flatMap((name) => [name, `${name}/*`])

await rm(out, { recursive: true, force: true })
await build({
  entryPoints: ['main.ts', 'admin.ts'].map((entry) => new URL(`src/${entry}`, root).pathname),
  outdir: out.pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  // MikroORM names entities after their classes, which bundling may rename.
  keepNames: true,
  logLevel: 'warning',
})
await cp(new URL('src/modules/gallery-pages/assets/', root), new URL('assets/', out), { recursive: true })
console.log(`Built ${out.pathname}main.js and admin.js`)
