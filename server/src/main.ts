import { constants } from 'node:os'

import { GALLERY_PAGES_PATH, KIOSK_APP_PATH, loadSettings } from './config.js'
import { DEMO } from './modules/events/index.js'
import { createLogger, redact } from './logger.js'
import { startServer, type RunningServer } from './server.js'

/** Replaced by one at the configured level once the settings are read. */
let logger = createLogger()

/** What closing the database and stopping the embedded cluster may take after the grace. */
const STOP_MARGIN_MS = 15_000

/**
 * The log stream is JSON lines only: Node's warnings (a library's deprecation, the AWS SDK's notice
 * about Node versions) become warning lines instead of a block on stderr, and a crash is a last
 * error line. A promise rejected with nobody listening is a bug to fix, not a reason to stop serving.
 */
function logProcessEvents() {
  process.removeAllListeners('warning')
  process.on('warning', (warning) => logger.warn(`process warning: ${warning.name}`, { text: redact(warning.message) }))
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', reason))
  process.on('uncaughtException', (error) => {
    logger.error('crashed', error)
    process.exit(1)
  })
}

async function main() {
  const settings = loadSettings()
  logger = createLogger({ level: settings.logLevel })
  logProcessEvents()
  /** Set once started: a signal before that has nothing to drain. */
  const service: { running?: RunningServer } = {}
  let stopping = false
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal, graceMs: settings.shutdownGraceMs })
    const { running } = service
    // Still starting: nothing to drain. The embedded cluster, if it was started, is stopped by its
    // 'exit' hook.
    if (!running) process.exit(128 + constants.signals[signal])
    // The drain is bounded by the delay and the grace; closing the database and the embedded cluster
    // after it takes a moment. Should they hang, the process still ends.
    setTimeout(
      () => {
        logger.error('stop did not finish in time', new Error(`still stopping ${STOP_MARGIN_MS} ms after the delay and the grace`))
        process.exit(1)
      },
      settings.shutdownDelayMs + settings.shutdownGraceMs + STOP_MARGIN_MS,
    ).unref()
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', error)
        process.exit(1)
      },
    )
  }
  // SIGINT: Ctrl-C in a terminal. SIGHUP: that terminal closed. SIGTERM: everything else.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal))

  const running = (service.running = await startServer({ settings, logger }))
  // Its "listening" line (with the address bound) is startServer's.
  const base = running.config.publicUrl
  if (settings.seedDemo) {
    console.log(
      [
        '',
        `  Photo booth service on ${base} (${settings.mode})`,
        `  Staff console:   ${base}/console   (first member: pnpm admin staff create --email <email>)`,
        `  Kiosk:           ${base}${KIOSK_APP_PATH}/${DEMO.eventSlug}/${DEMO.sets[0].slug}   (JSON: ${base}/events/${DEMO.eventSlug}/sets/${DEMO.sets[0].slug})`,
        `  Event page:      ${base}${GALLERY_PAGES_PATH}/events/${DEMO.eventSlug}   (JSON: ${base}/gallery/events/${DEMO.eventSlug})`,
        `  OpenAPI:         ${base}/openapi.json`,
        `  API reference:   ${base}/docs`,
        '',
      ].join('\n'),
    )
  }
}

main().catch((error: unknown) => {
  logger.error('start-up failed', error)
  process.exit(1)
})
