/**
 * The real service in a process of its own, for the drills (test/drills) and the delivery test that
 * kills one mid-send: configured from the environment as `main.ts` is, with the dispatcher's pace
 * from TEST_DISPATCHER and the copies worker's from TEST_COPIES (JSON, merged over the defaults, so
 * that a dead instance's leases run out within a test), and its log's level from TEST_LOG_LEVEL
 * (`error` by default: faults only; a drill that reads every line sets `info` or `trace`). Says where it listens: `{ ready: true, url }` over IPC. Killed outright (SIGKILL),
 * or stopped gracefully on SIGTERM as `main.ts` stops (exit 0 once drained).
 */
import { loadSettings } from '@photobooth/server/config'
import { createLogger, type LogLevel } from '@photobooth/server/logger'
import { startServer } from '@photobooth/server/server'

const settings = loadSettings(process.env)
const running = await startServer({
  settings: {
    ...settings,
    port: 0,
    host: '127.0.0.1',
    seedDemo: false,
    delivery: { ...settings.delivery, dispatcher: { ...settings.delivery.dispatcher, ...JSON.parse(process.env.TEST_DISPATCHER ?? '{}') } },
    copies: { ...settings.copies, worker: { ...settings.copies.worker, ...JSON.parse(process.env.TEST_COPIES ?? '{}') } },
  },
  // Faults only by default, on standard error (the drills show it when something fails).
  logger: createLogger({
    level: (process.env.TEST_LOG_LEVEL as LogLevel | undefined) ?? 'error',
    write: (line) => process.stderr.write(line),
  }),
})
process.on('SIGTERM', () => {
  running.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
process.send?.({ ready: true, url: running.url.replace('localhost', '127.0.0.1') })
