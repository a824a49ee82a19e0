// The connector as one file, `dist/cli.js`, with the SDK and its few dependencies inside: its packed
// tarball installs with no registry behind it (`npx --package=./photobooth-booth-0.1.0.tgz photobooth-booth`),
// as a booth PC's may.
import { rmSync } from 'node:fs'
import { join } from 'node:path'

import { build } from 'esbuild'

const here = import.meta.dirname
rmSync(join(here, 'dist'), { recursive: true, force: true })
await build({
  entryPoints: [join(here, 'src/cli.ts')],
  outfile: join(here, 'dist/cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'inline',
})
