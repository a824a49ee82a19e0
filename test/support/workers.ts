/**
 * Test files run this many at a time, each worker on a database of its own (global-setup.ts): files
 * of one worker run one after the other, so that a file's "nothing was written" row counts and its
 * dispatchers and copies workers see no other file's rows. Most files wait on sockets, timers and
 * PostgreSQL rather than compute, so more workers than cores pays: `TEST_WORKERS` overrides.
 */
export const TEST_WORKERS = Number(process.env.TEST_WORKERS) || 4
