import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'server/src/**/*.test.ts', 'sdk/src/**/*.test.ts'],
    // Browser tests need Chromium: `pnpm test:browser` (CI installs it).
    exclude: ['**/node_modules/**', 'test/browser/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // One PostgreSQL for the run; files one at a time so that "nothing was written" row counts
    // are not disturbed by another file's writes. Each test still seeds its own event.
    fileParallelism: false,
  },
})
