// The connector as one file, `dist/cli.js`, with the SDK and its few dependencies inside: its packed
// tarball installs with no registry behind it (`npx ./photobooth-booth-0.1.0.tgz`), as a booth PC's may.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'

rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true })
await build({
  entryPoints: [new URL('./src/cli.ts', import.meta.url).pathname],
  outfile: new URL('./dist/cli.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'inline',
})
