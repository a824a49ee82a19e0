import twilio from 'twilio'

import { composeGalleryLink, PermanentFailure, type Transport } from './transport.js'

export type TwilioSettings = {
  accountSid: string
  authToken: string
  /** A sender number, or a messaging service (which picks the sender). */
  from?: string
  messagingServiceSid?: string
  /** Another API origin (a proxy, or a local fake in tests); Twilio's own by default. */
  apiUrl?: string
  timeoutMs: number
}

/** Twilio error codes that no retry can fix: invalid, unsubscribed or unreachable recipients. */
const PERMANENT_CODES = new Set([21211, 21408, 21610, 21612, 21614, 30003, 30005, 30006])

/** SMS through the twilio SDK. */
export function createTwilioTransport(settings: TwilioSettings): Transport {
  const client = twilio(settings.accountSid, settings.authToken, {
    timeout: settings.timeoutMs,
    ...(settings.apiUrl ? { httpClient: redirectedClient(settings.apiUrl, settings.timeoutMs) } : {}),
  })
  return {
    async send(message) {
      const { sms } = composeGalleryLink(message)
      try {
        const created = await client.messages.create({
          to: message.recipient,
          body: sms,
          ...(settings.messagingServiceSid ? { messagingServiceSid: settings.messagingServiceSid } : { from: settings.from! }),
        })
        return { providerMessageId: created.sid }
      } catch (error) {
        const { code, status } = error as { code?: number; status?: number }
        if ((code !== undefined && PERMANENT_CODES.has(code)) || status === 400) {
          throw new PermanentFailure(`Twilio refused the message: ${(error as Error).message}`, { cause: error })
        }
        throw error
      }
    },
  }
}

/** The SDK's own HTTP client, sending to another origin: same requests, same auth, same parsing. */
function redirectedClient(apiUrl: string, timeoutMs: number) {
  const origin = new URL(apiUrl).origin
  const base = new twilio.RequestClient({ timeout: timeoutMs })
  const request = base.request.bind(base)
  base.request = (options) => request({ ...options, uri: options.uri.replace(/^https:\/\/[^/]+/, origin) })
  return base
}
