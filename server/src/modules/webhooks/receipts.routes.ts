import { createHash, timingSafeEqual } from 'node:crypto'

import { contract } from '@photobooth/sdk/contract'
import { PostmarkWebhook, TwilioInboundMessage, TwilioStatusCallback } from '@photobooth/sdk/schemas'
import { Router, type Request, type RequestHandler, type Response } from 'express'
import twilio from 'twilio'
import type { z } from 'zod'

import type { Services } from '../../context.js'
import { errorBody, sendError, sendInvalid } from '../../http/answers.js'
import { readLimited } from '../../http/body-limit.js'
import { expressPath } from '../../http/edge.js'
import { recordPostmarkEvent, recordTwilioInbound, recordTwilioStatus } from './receipts.service.js'

/** A bounce may carry the message's content (Postmark's "include content" option): a gallery-link email is a few kilobytes. */
const MAX_WEBHOOK_BYTES = 256 * 1024

const POSTMARK_REFUSED = errorBody('unauthorized', 'Webhook credentials required')
const TWILIO_REFUSED = errorBody('forbidden', 'Twilio signature required')
const BAD_BODY = errorBody('bad_body', 'bad body')

/** The empty TwiML answer: Twilio sends the guest its own STOP and START confirmations. */
const NO_REPLY = '<?xml version="1.0" encoding="UTF-8"?><Response/>'

/**
 * The providers' webhooks (contract: `webhooks`), answered by Express: Twilio's signature covers the
 * request's exact URL and form fields, which only the raw request shows. Each checks its caller
 * before it reads anything, changes at most a message and the suppression list, and answers at once.
 */
export function receiptRoutes(services: Pick<Services, 'orm' | 'config' | 'logger'>): Router {
  const router = Router()
  const { config } = services
  const em = () => services.orm.em.fork()

  router.post(
    expressPath(contract.webhooks.postmark),
    webhook(postmarkPayload, PostmarkWebhook, (event) => recordPostmarkEvent({ em: em() }, event)),
  )
  router.post(
    expressPath(contract.webhooks.twilioStatus),
    webhook(signedTwilioFields, TwilioStatusCallback, (callback, req) =>
      recordTwilioStatus({ em: em() }, { messageId: typeof req.query['message'] === 'string' ? req.query['message'] : null, callback }),
    ),
  )
  router.post(
    expressPath(contract.webhooks.twilioInbound),
    webhook(
      signedTwilioFields,
      TwilioInboundMessage,
      async (message, req) => {
        const idempotencyToken = req.headers['i-twilio-idempotency-token']
        const outcome = await recordTwilioInbound({ em: em() }, message, typeof idempotencyToken === 'string' ? { idempotencyToken } : {})
        if (outcome === 'replayed') services.logger.info('a Twilio opt-out or opt-in seen before was not applied again')
      },
      (res) => void res.type('text/xml').send(NO_REPLY),
    ),
  )

  /** Postmark's JSON, or undefined once refused: basic credentials first, then the body. */
  async function postmarkPayload(req: Request, res: Response): Promise<unknown> {
    const credentials = config.delivery.postmarkWebhook
    if (!credentials || !basicCredentialsMatch(req.headers.authorization, credentials)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="webhooks", charset="UTF-8"')
      return sendError(res, 401, POSTMARK_REFUSED)
    }
    const body = await readBody(req, res)
    if (body === undefined) return undefined
    try {
      return JSON.parse(body.toString('utf8')) as unknown
    } catch {
      return sendError(res, 400, BAD_BODY)
    }
  }

  /**
   * The form fields of a request Twilio signed, or undefined once refused: `X-Twilio-Signature` is
   * checked by the twilio package over `PUBLIC_URL` + the path and query as sent, and the fields.
   */
  async function signedTwilioFields(req: Request, res: Response): Promise<Record<string, string | string[]> | undefined> {
    const sms = config.delivery.sms
    const signature = req.headers['x-twilio-signature']
    if (sms?.kind !== 'twilio' || typeof signature !== 'string') return void sendError(res, 403, TWILIO_REFUSED)
    const body = await readBody(req, res)
    if (body === undefined) return undefined
    const fields = formFields(body.toString('utf8'))
    const url = `${config.publicUrl.replace(/\/$/, '')}${req.originalUrl}`
    if (!twilio.validateRequest(sms.authToken, signature, url, fields)) return void sendError(res, 403, TWILIO_REFUSED)
    return fields
  }

  return router
}

/**
 * One webhook: its caller checked and its body read by `payloadOf` (undefined once it refused),
 * parsed by its schema, recorded, answered. A fault (the database away) goes to the app's last
 * resort: a 503 or 500, which the provider retries later.
 */
function webhook<T extends z.ZodType>(
  payloadOf: (req: Request, res: Response) => Promise<unknown>,
  schema: T,
  record: (payload: z.output<T>, req: Request) => Promise<void>,
  answer: (res: Response) => void = (res) => void res.json({ received: true }),
): RequestHandler {
  return async (req, res, next) => {
    try {
      const raw = await payloadOf(req, res)
      if (raw === undefined) return
      const payload = parse(schema, raw, res)
      if (payload === undefined) return
      await record(payload, req)
      answer(res)
    } catch (error) {
      next(error)
    }
  }
}

/** The body's bytes, or undefined once refused (too large, cut short). */
async function readBody(req: Request, res: Response): Promise<Buffer | undefined> {
  const body = await readLimited(req, MAX_WEBHOOK_BYTES).catch(() => undefined)
  if (body === undefined || body === 'too large') {
    sendError(res, 400, BAD_BODY)
    return undefined
  }
  return body
}

/** A form body's fields as Twilio's validator takes them: a repeated name gives its values in order. */
export function formFields(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {}
  for (const [name, value] of new URLSearchParams(body)) {
    const previous = fields[name]
    fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]
  }
  return fields
}

/** The payload as its schema reads it, or undefined once answered 400 in the validator's shape. */
function parse<T extends z.ZodType>(schema: T, value: unknown, res: Response): z.output<T> | undefined {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  sendInvalid(res, parsed.error.issues)
  return undefined
}

/** `Authorization: Basic …` against the configured pair, compared in constant time (as digests, equal in length). */
function basicCredentialsMatch(header: string | undefined, expected: { user: string; password: string }): boolean {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '')
  if (!match) return false
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(Buffer.from(match[1]!, 'base64').toString('utf8')), digest(`${expected.user}:${expected.password}`))
}
