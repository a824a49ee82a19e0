import type { Logger } from '../../logger.js'
import { composeGalleryLink, type Transport } from './transport.js'

/** Development: each message goes to the log with its link, and counts as sent. */
export function createConsoleTransport(logger: Logger): Transport {
  return {
    async send(message) {
      const { subject, sms } = composeGalleryLink(message)
      logger.info(`${message.channel} to ${message.recipient}`, {
        channel: message.channel,
        to: message.recipient,
        ...(message.channel === 'email' ? { subject } : { body: sms }),
        link: message.link,
      })
      return { providerMessageId: `console-${message.id}` }
    },
  }
}
