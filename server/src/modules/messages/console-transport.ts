import type { Logger } from '../../logger.js'
import { composeGalleryLink, type Transport } from './transport.js'

/**
 * A guest's address as the log shows it: enough to tell guests apart, not enough to reach them
 * (`a…@example.org`, `+1…71`).
 */
export function masked(recipient: string): string {
  const at = recipient.lastIndexOf('@')
  return at > 0 ? `${recipient[0]}…${recipient.slice(at)}` : `${recipient.slice(0, 2)}…${recipient.slice(-2)}`
}

/** Development: each message goes to the log with its link, and counts as sent. */
export function createConsoleTransport(logger: Logger): Transport {
  return {
    async send(message) {
      const { subject, sms } = composeGalleryLink(message)
      const to = masked(message.recipient)
      logger.info(`${message.channel} to ${to}`, {
        channel: message.channel,
        // Not `message`: that is the line's own text (logger.ts), which would shadow it.
        messageId: message.id,
        to,
        ...(message.channel === 'email' ? { subject } : { body: sms }),
        link: message.link,
      })
      return { providerMessageId: `console-${message.id}` }
    },
  }
}
