import { Errors, ServerClient } from 'postmark'

import { composeGalleryLink, PermanentFailure, type Transport } from './transport.js'

export type PostmarkSettings = {
  serverToken: string
  from: string
  messageStream: string
  /** Another API origin (a proxy, or a local fake in tests); Postmark's own by default. */
  apiUrl?: string
  timeoutMs: number
}

export function createPostmarkClient(settings: PostmarkSettings): ServerClient {
  const api = settings.apiUrl ? new URL(settings.apiUrl) : undefined
  return new ServerClient(settings.serverToken, {
    timeout: settings.timeoutMs / 1000,
    ...(api ? { useHttps: api.protocol === 'https:', requestHost: api.host } : {}),
  })
}

/** Email through the postmark SDK. Inactive or invalid recipients are permanent refusals. */
export function createPostmarkTransport(settings: PostmarkSettings): Transport {
  const client = createPostmarkClient(settings)
  return {
    async send(message) {
      const { subject, text, html } = composeGalleryLink(message)
      try {
        const response = await client.sendEmail({
          From: settings.from,
          To: message.recipient,
          Subject: subject,
          TextBody: text,
          HtmlBody: html,
          MessageStream: settings.messageStream,
          Tag: 'gallery-link',
          Metadata: { outboxMessageId: message.id },
        })
        return { providerMessageId: response.MessageID }
      } catch (error) {
        if (error instanceof Errors.InactiveRecipientsError || error instanceof Errors.InvalidEmailRequestError) {
          throw new PermanentFailure(`Postmark refused the recipient: ${error.message}`, { cause: error })
        }
        throw error
      }
    },
  }
}
