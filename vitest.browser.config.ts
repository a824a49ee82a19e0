import { defineConfig } from 'vitest/config'

/** Tests that drive Debian's Chromium (`apt-get install chromium`): `pnpm test:browser`, run by CI. */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    // The web apps first (apps/*: the kiosk), built if their sources changed, for the service to serve.
    globalSetup: ['test/support/build-apps.ts', 'test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One file at a time, as `pnpm test`: the files' servers share the run's database, and one's
    // copies worker must not take another's photos (their buckets differ).
    fileParallelism: false,
  },
})
