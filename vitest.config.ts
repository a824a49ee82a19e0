import { defineConfig } from 'vitest/config'

import { SlowFirstSequencer } from './test/support/sequencer.js'
import { TEST_WORKERS } from './test/support/workers.js'

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts', 'server/src/**/*.test.ts', 'sdk/src/**/*.test.ts'],
    // Browser tests need Chromium: `pnpm test:browser` (CI installs it).
    exclude: ['**/node_modules/**', 'test/browser/**'],
    // A bound on a test that hangs, not a speed target (those live in `pnpm bench`): CI's machine may
    // run at half speed when it is shared.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { sequencer: SlowFirstSequencer },
    // TEST_WORKERS files at a time, each worker on a database of its own (test/support/workers.ts).
    maxWorkers: TEST_WORKERS,
    // A worker keeps the modules it imported from one file to the next: the server's import (MikroORM,
    // the AWS SDK, sharp) is most of a short file's time. Each file starts and stops its own servers,
    // and no test mocks a module, so nothing of one file's state reaches the next.
    isolate: false,
  },
})
