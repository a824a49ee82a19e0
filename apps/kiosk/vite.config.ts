import { createHash } from 'node:crypto'

import { defineConfig, type Plugin } from 'vite'

/** Served by the service under /kiosk (server/src/http/static-apps.ts); `assets/` is cached for good. */
const BASE = '/kiosk/'

/**
 * The service worker (src/sw.ts) is built beside the app as /kiosk/sw.js, a name that never
 * changes (the browser checks it at every start), with the list of the build's files and their
 * version written into it: a new build is a new worker, which replaces the kept app.
 */
function serviceWorkerBuild(): Plugin {
  return {
    name: 'kiosk-service-worker',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const worker = Object.values(bundle).find((file) => file.type === 'chunk' && file.name === 'sw')
      if (!worker || worker.type !== 'chunk') throw new Error('the service worker was not built')
      const files = Object.values(bundle)
        .filter((file) => file !== worker && !file.fileName.endsWith('.map'))
        .map((file) => file.fileName)
        .sort()
      const hash = createHash('sha256')
      for (const name of files) {
        const file = bundle[name]!
        hash.update(name).update(file.type === 'chunk' ? file.code : file.source)
      }
      const build = JSON.stringify({ version: hash.digest('hex').slice(0, 16), files })
      worker.code = worker.code.replace(/\bself\.__KIOSK_BUILD__\b|\w+\.__KIOSK_BUILD__/, `(${build})`)
      if (!worker.code.includes(build)) throw new Error('the service worker has no place for its build list')
    },
  }
}

// eslint-disable-next-line no-restricted-syntax -- Vite reads its configuration from the default export
export default defineConfig({
  base: BASE,
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: { index: 'index.html', sw: 'src/sw.ts' },
      output: { entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [serviceWorkerBuild()],
})
