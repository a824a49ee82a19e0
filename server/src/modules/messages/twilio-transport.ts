import twilio from 'twilio'

import { composeGalleryLink, PermanentFailure, responseHints, retryAfterMs, Throttled, type Transport } from './transport.js'

export type TwilioSettings = {
  accountSid: string
  authToken: string
  /** A sender number, or a messaging service (which picks the sender). */
  from?: string
  messagingServiceSid?: string
  /** Another API origin (a proxy, or a local fake in tests); Twilio's own by default. */
  apiUrl?: string
  timeoutMs: number
  /**
   * Where Twilio reports each message's fate (`PUBLIC_URL/webhooks/twilio/status`): sent with every
   * message, with the message's id in the query (modules/webhooks).
   */
  statusCallbackUrl?: string
}

/** Twilio error codes that no retry can fix: invalid, unsubscribed or unreachable recipients. */
const PERMANENT_CODES = new Set([21211, 21408, 21610, 21612, 21614, 30003, 30005, 30006])

/** The recipient replied STOP: Twilio refuses every message to it until they reply START. */
export const TWILIO_UNSUBSCRIBED = 21610

/** Twilio's error code for "too many requests" (with HTTP 429). */
const TOO_MANY_REQUESTS = 20429

/** SMS through the twilio SDK. A 429 (20429) is throttling, never a refusal. */
export function createTwilioTransport(settings: TwilioSettings): Transport {
  const client = twilio(settings.accountSid, settings.authToken, {
    timeout: settings.timeoutMs,
    httpClient: httpClient(settings.apiUrl, settings.timeoutMs),
  })
  return {
    send: (message) =>
      responseHints.run({}, async () => {
        const { sms } = composeGalleryLink(message)
        try {
          const created = await client.messages.create({
            to: message.recipient,
            body: sms,
            ...(settings.statusCallbackUrl ? { statusCallback: statusCallback(settings.statusCallbackUrl, message.id) } : {}),
            ...(settings.messagingServiceSid ? { messagingServiceSid: settings.messagingServiceSid } : { from: settings.from! }),
          })
          return { providerMessageId: created.sid }
        } catch (error) {
          const { code, status } = error as { code?: number; status?: number }
          if (status === 429 || code === TOO_MANY_REQUESTS) {
            throw new Throttled(`Twilio rate limit: ${(error as Error).message}`, responseHints.getStore()?.retryAfterMs, { cause: error })
          }
          if ((code !== undefined && PERMANENT_CODES.has(code)) || status === 400) {
            throw new PermanentFailure(`Twilio refused the message: ${(error as Error).message}`, {
              cause: error,
              suppress: code === TWILIO_UNSUBSCRIBED ? 'unsubscribed' : undefined,
            })
          }
          throw error
        }
      }),
  }
}

/** The status callback URL of one message: it names the message, so a report finds it before its send is recorded. */
export function statusCallback(url: string, messageId: string): string {
  const callback = new URL(url)
  callback.searchParams.set('message', messageId)
  return callback.href
}

/**
 * The SDK's own HTTP client (same requests, same auth, same parsing), sending to another origin
 * when one is given, and leaving a 429's Retry-After for the send that asked (its errors carry no headers).
 */
function httpClient(apiUrl: string | undefined, timeoutMs: number) {
  const origin = apiUrl ? new URL(apiUrl).origin : undefined
  const base = new twilio.RequestClient({ timeout: timeoutMs })
  const request = base.request.bind(base)
  base.request = async (options) => {
    const response = await request(origin ? { ...options, uri: options.uri.replace(/^https:\/\/[^/]+/, origin) } : options)
    const hints = responseHints.getStore()
    if (response.statusCode === 429 && hints) {
      const headers = response.headers as Record<string, string | undefined> | undefined
      hints.retryAfterMs = retryAfterMs(headers?.['retry-after'])
    }
    return response
  }
  return base
}
