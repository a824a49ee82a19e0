import { inject } from 'vitest'

/** This worker's database (global-setup.ts): the files of one worker run one after the other on it. */
export function testDatabaseUrl(): string {
  const urls = inject('databaseUrls')
  return urls[(Number(process.env.VITEST_POOL_ID ?? '1') - 1) % urls.length]!
}
