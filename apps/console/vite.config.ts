import { defineConfig } from 'vite'

/** Served by the service under /console (server/src/http/static-apps.ts); `assets/` is cached for good. */
const BASE = '/console/'

// eslint-disable-next-line no-restricted-syntax -- Vite reads its configuration from the default export
export default defineConfig({
  base: BASE,
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: { entryFileNames: 'assets/[name]-[hash].js' },
      // TanStack Query marks its hooks "use client" for React Server Components: meaningless in a page of its own.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning)
      },
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
})
