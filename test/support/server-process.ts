/**
 * The real service in a process of its own, for tests that must kill one outright (SIGKILL: no
 * stop, no clean-up). Configured from the environment as `main.ts` is, with the dispatcher's pace
 * from TEST_DISPATCHER (JSON) so that a lease runs out within a test. Says 'ready' over IPC.
 */
import { loadSettings } from '@photobooth/server/config'
import { createLogger } from '@photobooth/server/logger'
import { startServer } from '@photobooth/server/server'

const settings = loadSettings(process.env)
await startServer({
  settings: {
    ...settings,
    port: 0,
    host: '127.0.0.1',
    seedDemo: false,
    delivery: { ...settings.delivery, dispatcher: { ...settings.delivery.dispatcher, ...JSON.parse(process.env.TEST_DISPATCHER ?? '{}') } },
  },
  logger: createLogger({ silent: true }),
})
process.send?.('ready')
