import { escapeHtml } from '../../html.js'
import type { Logger } from '../../logger.js'
import { createPostmarkClient, masked, type PostmarkSettings } from '../messages/index.js'
import type { ContactMailer, ContactMessage } from './contact.service.js'

function render(message: ContactMessage) {
  const entries = Object.entries(message.fields)
  return {
    text: entries.map(([label, value]) => `${label}:\n${value}\n`).join('\n'),
    html: `<!doctype html><html><body style="font-family:sans-serif">${entries
      .map(([label, value]) => `<p><strong>${escapeHtml(label)}</strong><br>${escapeHtml(value).replace(/\r?\n/g, '<br>')}</p>`)
      .join('')}</body></html>`,
  }
}

/** Through Postmark's JSON API: labels and values only ever go into the body. */
export function createPostmarkContactMailer(settings: PostmarkSettings & { to: string }): ContactMailer {
  const client = createPostmarkClient(settings)
  return {
    async send(message) {
      const { text, html } = render(message)
      await client.sendEmail({
        From: settings.from,
        To: settings.to,
        ...(message.replyTo ? { ReplyTo: message.replyTo } : {}),
        Subject: 'Website contact form',
        TextBody: text,
        HtmlBody: html,
        MessageStream: settings.messageStream,
        Tag: 'contact-form',
      })
    },
  }
}

/**
 * Development: the log says a submission was relayed, with its labels and the length of each value,
 * and its Reply-To masked as the gallery links' are; a sender's name, address, phone and message are
 * personal data, which a development log keeps no more than a production one.
 */
export function createConsoleContactMailer(logger: Logger): ContactMailer {
  return {
    async send(message) {
      logger.info('contact form', {
        characters: Object.fromEntries(Object.entries(message.fields).map(([label, value]) => [label, value.length])),
        ...(message.replyTo ? { replyTo: masked(message.replyTo) } : {}),
      })
    },
  }
}
