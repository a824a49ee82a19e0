import { loadSettings } from './config.js'
import { DEMO } from './db/seed.js'
import { createLogger } from './logger.js'
import { startServer } from './server.js'

const logger = createLogger()

async function main() {
  const settings = loadSettings()
  const running = await startServer({ settings, logger })
  const base = running.config.publicUrl
  logger.info('photo booth service listening', { url: base, mode: settings.mode })
  if (settings.seedDemo) {
    console.log(
      [
        '',
        `  Photo booth service on ${base} (${settings.mode})`,
        `  Kiosk context:   ${base}/events/${DEMO.eventSlug}/sets/${DEMO.sets[0].slug}`,
        `  Event page:      ${base}/gallery/events/${DEMO.eventSlug}`,
        `  OpenAPI:         ${base}/openapi.json`,
        '',
      ].join('\n'),
    )
  }
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal })
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', error)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}

main().catch((error: unknown) => {
  logger.error('start-up failed', error)
  process.exit(1)
})
