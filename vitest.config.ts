import { defineConfig } from 'vitest/config'

import { TEST_WORKERS } from './test/support/workers.js'

/** Packs the SDK in place (its prepack swaps sdk/package.json): nothing else may resolve the SDK meanwhile. */
const SDK_PACK = 'test/sdk/sdk-pack.test.ts'
// Browser tests need Chromium: `pnpm test:browser` (CI installs it).
const EXCLUDE = ['**/node_modules/**', 'test/browser/**']

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        // TEST_WORKERS files at a time, each worker on a database of its own (test/support/workers.ts).
        test: {
          name: 'main',
          include: ['test/**/*.test.ts', 'server/src/**/*.test.ts', 'sdk/src/**/*.test.ts'],
          exclude: [...EXCLUDE, SDK_PACK],
          maxWorkers: TEST_WORKERS,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'sdk-pack', include: [SDK_PACK], exclude: EXCLUDE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
})
