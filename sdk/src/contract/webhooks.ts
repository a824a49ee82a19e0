import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { PostmarkWebhook, TwilioInboundMessage, TwilioStatusCallback } from '../schemas/webhooks.js'
import { badRequestOf, base, ErrorRef, withCodes } from './base.js'

const tags = ['Webhooks']

/** A provider's callback is acknowledged with any 2xx; the body is for people reading a log. */
const Acknowledged = z.object({ received: z.literal(true) }).meta({ examples: [{ received: true }] })

const formBody =
  (schema: string, refusal: OpenAPI.ResponseObject) =>
  (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
    ...operation,
    security: [{ twilioSignature: [] }],
    requestBody: {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: { $ref: `#/components/schemas/${schema}` } } },
    },
    responses: { ...operation.responses, '403': refusal },
  })

const FORGED: OpenAPI.ResponseObject = {
  description:
    '`X-Twilio-Signature` is missing or does not match the request (signed with `TWILIO_AUTH_TOKEN` over `PUBLIC_URL` + the path and query, and the form fields), or Twilio is not configured: `{ "error": "Twilio signature required" }`. Nothing changes.',
  content: { 'application/json': { schema: ErrorRef } },
}

/**
 * A bounce may carry the message's content (Postmark's "include content" option): a gallery-link
 * email is a few kilobytes. Any body the route cannot take is the one `bad body`.
 */
const WEBHOOK_BODY = { body: { maxBytes: 256 * 1024, refused: { error: 'bad body', code: 'bad_body' } } } as const

/**
 * The providers' delivery receipts (docs/guests-data.md): called by Postmark and Twilio, never by a
 * kiosk (server/src/modules/webhooks). Twilio's signature is checked over the request's URL and form
 * fields as sent, not over the input as parsed. Not rate limited: a provider sends bursts from a few
 * addresses, and the credentials are the gate.
 */
export const webhooks = {
  postmark: base
    .meta(WEBHOOK_BODY)
    .route({
      method: 'POST',
      path: '/webhooks/postmark',
      operationId: 'postmarkWebhook',
      summary: "Postmark's webhooks: Delivery, Bounce, SpamComplaint, SubscriptionChange",
      description:
        "Set in Postmark (the message stream's webhooks) with the URL `https://<user>:<password>@<your host>/webhooks/postmark`, the credentials of `POSTMARK_WEBHOOK_USER` and `POSTMARK_WEBHOOK_PASSWORD`. A Delivery marks the message `delivered`; a Bounce or a SpamComplaint `bounced`, with Postmark's reason; a hard bounce, a spam complaint, an address Postmark deactivated, or a SubscriptionChange that suppresses sending puts the address on the suppression list (a SubscriptionChange that reactivates it lifts it). The same webhook twice changes nothing; a delivery reported after a bounce does not undo it. Other record types are acknowledged and ignored.",
      tags,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        security: [{ postmarkWebhook: [] }],
        responses: {
          ...operation.responses,
          '401': {
            description:
              'No basic credentials, wrong ones, or none configured: `{ "error": "Webhook credentials required" }` with `WWW-Authenticate: Basic`. Nothing changes.',
            content: { 'application/json': { schema: ErrorRef } },
          },
        },
      }),
    })
    .errors({ ...badRequestOf('bad_body'), UNAUTHORIZED: { status: 401, message: 'Webhook credentials required' } })
    .input(z.object({ body: PostmarkWebhook }))
    .output(Acknowledged),

  twilioStatus: base
    .meta(WEBHOOK_BODY)
    .route({
      method: 'POST',
      path: '/webhooks/twilio/status',
      operationId: 'twilioStatusCallback',
      summary: "Twilio's status callbacks for the gallery links sent by SMS",
      description:
        "The service asks for them itself: each SMS is sent with `StatusCallback` set to `PUBLIC_URL/webhooks/twilio/status?message=<message id>`. `delivered` (or `read`) marks the message `delivered`; `undelivered` or `failed` marks it `undelivered`, with Twilio's error code; error 21610 (the guest unsubscribed) puts the number on the suppression list. Repeated or late callbacks change nothing: a state is never taken back.",
      tags,
      inputStructure: 'detailed',
      spec: formBody('TwilioStatusCallback', FORGED),
    })
    .errors({ ...badRequestOf('bad_body'), FORBIDDEN: withCodes({ status: 403, message: 'Twilio signature required' }, 'forbidden') })
    .input(z.object({ query: z.object({ message: z.string().max(64).optional() }), body: TwilioStatusCallback }))
    .output(Acknowledged),

  twilioInbound: base
    .meta(WEBHOOK_BODY)
    .route({
      method: 'POST',
      path: '/webhooks/twilio/inbound',
      operationId: 'twilioInboundMessage',
      summary: 'SMS replies to the service’s number: STOP and START',
      description:
        "Set as the number's (or messaging service's) incoming-message webhook. `STOP`, `STOPALL`, `UNSUBSCRIBE`, `CANCEL`, `END`, `QUIT`, `REVOKE` or `OPTOUT` (or Twilio's `OptOutType: STOP`) puts the sender on the suppression list; `START`, `UNSTOP` or `YES` lifts it. Twilio answers the guest itself; the service answers an empty TwiML `<Response/>`.",
      tags,
      spec: (operation) => {
        const signed = formBody('TwilioInboundMessage', FORGED)(operation)
        return {
          ...signed,
          responses: {
            ...signed.responses,
            '200': {
              description: 'Empty TwiML: no reply',
              content: { 'text/xml': { schema: { type: 'string', examples: ['<Response/>'] } } },
            },
          },
        }
      },
      inputStructure: 'detailed',
    })
    .errors({ ...badRequestOf('bad_body'), FORBIDDEN: withCodes({ status: 403, message: 'Twilio signature required' }, 'forbidden') })
    .input(z.object({ body: TwilioInboundMessage }))
    .output(z.string()),
}
