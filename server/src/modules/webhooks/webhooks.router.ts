import { createHash, timingSafeEqual } from 'node:crypto'

import twilio from 'twilio'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { api } from '../../orpc.js'
import { recordPostmarkEvent, recordTwilioInbound, recordTwilioStatus } from './receipts.service.js'

const RECEIVED = { received: true } as const

/** The empty TwiML answer: Twilio sends the guest its own STOP and START confirmations. */
const NO_REPLY = '<?xml version="1.0" encoding="UTF-8"?><Response/>'

// Each caller is checked by a middleware of the area (`api.webhooks.use`), which runs before the
// input is validated: a stranger learns nothing of what the route takes.

/** Postmark's basic credentials; the body's limit and refusal are the contract's (`body`). */
const { postmark } = api.webhooks.use(({ context, next }) => {
  const credentials = context.config.delivery.postmarkWebhook
  if (!credentials || !basicCredentialsMatch(context.request?.headers.authorization, credentials)) {
    context.resHeaders?.set('WWW-Authenticate', 'Basic realm="webhooks", charset="UTF-8"')
    throw new AppError('unauthorized', 'Webhook credentials required')
  }
  return next()
})

const { twilioStatus, twilioInbound } = api.webhooks.use(async ({ context, next }) => {
  await checkTwilioSignature(context)
  return next()
})

/**
 * The providers' webhooks (contract: `webhooks`). Each checks its caller, changes at most a message
 * and the suppression list, and answers at once; a fault (the database away) is a 503 or 500, which
 * the provider retries later.
 */
export const webhooksRouter = {
  postmark: postmark.handler(async ({ input, context }) => {
    await recordPostmarkEvent(context, input.body)
    return RECEIVED
  }),
  twilioStatus: twilioStatus.handler(async ({ input, context }) => {
    await recordTwilioStatus(context, { messageId: input.query.message ?? null, callback: input.body })
    return RECEIVED
  }),
  twilioInbound: twilioInbound.handler(async ({ input, context }) => {
    const idempotencyToken = context.request?.headers['i-twilio-idempotency-token']
    const outcome = await recordTwilioInbound(context, input.body, typeof idempotencyToken === 'string' ? { idempotencyToken } : {})
    if (outcome === 'replayed') context.logger.info('a Twilio opt-out or opt-in seen before was not applied again')
    // Text, not JSON: the app sends a string answer of a text type as it is (app.ts).
    context.resHeaders?.set('Content-Type', 'text/xml; charset=utf-8')
    return NO_REPLY
  }),
}

/**
 * `X-Twilio-Signature`, checked by the twilio package over `PUBLIC_URL` + the path and query as sent,
 * and the form fields as sent (the body's own, not the input as oRPC's serializer reads it).
 */
async function checkTwilioSignature({ config, request }: Pick<AppContext, 'config' | 'request'>): Promise<void> {
  const sms = config.delivery.sms
  const signature = request?.headers['x-twilio-signature']
  if (sms?.kind !== 'twilio' || typeof signature !== 'string' || !request) throw twilioRefused()
  const body = await request.body()
  const fields = formFields(body instanceof URLSearchParams ? body : '')
  const url = `${config.publicUrl.replace(/\/$/, '')}${request.originalUrl}`
  if (!twilio.validateRequest(sms.authToken, signature, url, fields)) throw twilioRefused()
}

const twilioRefused = () => new AppError('forbidden', 'Twilio signature required')

/** A form body's fields as Twilio's validator takes them: a repeated name gives its values in order. */
export function formFields(body: string | URLSearchParams): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {}
  for (const [name, value] of typeof body === 'string' ? new URLSearchParams(body) : body) {
    const previous = fields[name]
    fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return fields
}

/** `Authorization: Basic …` against the configured pair, compared in constant time (as digests, equal in length). */
function basicCredentialsMatch(header: string | undefined, expected: { user: string; password: string }): boolean {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '')
  if (!match) return false
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(Buffer.from(match[1]!, 'base64').toString('utf8')), digest(`${expected.user}:${expected.password}`))
}
