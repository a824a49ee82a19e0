import { Errors, ServerClient, type Models } from 'postmark'

import { Fault } from '../../errors.js'
import {
  composeGalleryLink,
  PermanentFailure,
  responseHints,
  retryAfterMs,
  Throttled,
  type OutgoingMessage,
  type Outcome,
  type Transport,
} from './transport.js'

export type PostmarkSettings = {
  serverToken: string
  from: string
  messageStream: string
  /** Another API origin (a proxy, or a local fake in tests); Postmark's own by default. */
  apiUrl?: string
  timeoutMs: number
}

/** The most messages Postmark takes in one `POST /email/batch`. */
export const POSTMARK_MAX_BATCH = 500

/** Postmark's API error code for a recipient it deactivated (a hard bounce, a complaint): it will not send to it. */
const INACTIVE_RECIPIENT = Errors.ApiInputError.ERROR_CODES.inactiveRecipient
/** Postmark's API error codes for a refusal of the recipient or the message that no retry changes. */
const PERMANENT_CODES = new Set([INACTIVE_RECIPIENT, Errors.ApiInputError.ERROR_CODES.invalidEmailRequest])
/** Postmark's API error code for "rate limit exceeded", in a batch's per-message results too. */
const RATE_LIMITED = 429

export function createPostmarkClient(settings: PostmarkSettings): ServerClient {
  const api = settings.apiUrl ? new URL(settings.apiUrl) : undefined
  return new ServerClient(settings.serverToken, {
    timeout: settings.timeoutMs / 1000,
    ...(api ? { useHttps: api.protocol === 'https:', requestHost: api.host } : {}),
    // The SDK's errors carry no headers: a 429's Retry-After is left for the send that asked.
    fetch: async (input, init) => {
      // The SDK's types name the DOM's RequestInfo, which Node's types do not declare: the same thing.
      const response = await fetch(input as Parameters<typeof fetch>[0], init)
      const hints = responseHints.getStore()
      if (response.status === 429 && hints) hints.retryAfterMs = retryAfterMs(response.headers.get('retry-after'))
      return response
    },
  })
}

/** A single send's error as the dispatcher classes it: a permanent refusal, throttling, or transient. */
function classify(error: unknown): unknown {
  if (error instanceof Errors.InactiveRecipientsError) {
    return new PermanentFailure(`Postmark refused the recipient: ${error.message}`, { cause: error, suppress: 'inactive-recipient' })
  }
  if (error instanceof Errors.InvalidEmailRequestError)
    return new PermanentFailure(`Postmark refused the recipient: ${error.message}`, { cause: error })
  if (error instanceof Errors.RateLimitExceededError || (error instanceof Errors.PostmarkError && error.statusCode === 429)) {
    return new Throttled(`Postmark rate limit: ${error.message}`, responseHints.getStore()?.retryAfterMs, { cause: error })
  }
  return error
}

/** One result of a batch (HTTP 200 whatever each message's fate), mapped like a single send's error. */
function outcomeOf(result: Models.MessageSendingResponse | undefined): Outcome {
  if (!result) return { error: new Error('Postmark answered the batch without a result for this message') }
  if (result.ErrorCode === 0 && result.MessageID) return { sent: { providerMessageId: result.MessageID } }
  const reason = `${result.Message} (Postmark error ${result.ErrorCode})`
  if (PERMANENT_CODES.has(result.ErrorCode)) {
    const suppress = result.ErrorCode === INACTIVE_RECIPIENT ? 'inactive-recipient' : undefined
    return { error: new PermanentFailure(`Postmark refused the recipient: ${reason}`, { suppress }) }
  }
  if (result.ErrorCode === RATE_LIMITED) return { error: new Throttled(`Postmark rate limit: ${reason}`) }
  return { error: new Error(`Postmark did not send: ${reason}`) }
}

/**
 * Email through the postmark SDK. Inactive or invalid recipients are permanent refusals; a 429 is
 * throttling. Several due emails go in one `POST /email/batch` (up to 500), whose per-message
 * results settle each message.
 */
export function createPostmarkTransport(settings: PostmarkSettings): Transport {
  const client = createPostmarkClient(settings)
  const email = (message: OutgoingMessage): Models.Message => {
    const { subject, text, html } = composeGalleryLink(message)
    return {
      From: settings.from,
      To: message.recipient,
      Subject: subject,
      TextBody: text,
      HtmlBody: html,
      MessageStream: settings.messageStream,
      Tag: 'gallery-link',
      Metadata: { outboxMessageId: message.id },
    }
  }
  return {
    maxBatch: POSTMARK_MAX_BATCH,
    send: (message) =>
      responseHints.run({}, async () => {
        try {
          const response = await client.sendEmail(email(message))
          return { providerMessageId: response.MessageID }
        } catch (error) {
          throw classify(error)
        }
      }),
    sendBatch: (messages) =>
      responseHints.run({}, async () => {
        if (messages.length > POSTMARK_MAX_BATCH) throw new Fault(`a Postmark batch holds at most ${POSTMARK_MAX_BATCH} messages`)
        let results: Models.MessageSendingResponse[]
        try {
          results = await client.sendEmailBatch(messages.map(email))
        } catch (error) {
          throw classify(error)
        }
        return messages.map((_, index) => outcomeOf(results[index]))
      }),
  }
}
