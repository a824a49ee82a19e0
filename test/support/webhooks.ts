/** The providers' callbacks as they send them: Postmark's payloads with basic credentials, Twilio's forms signed. */
import { randomBytes } from 'node:crypto'

import type { Models } from 'postmark'
import twilio from 'twilio'

import type { TestServer } from './harness.js'

export const POSTMARK_WEBHOOK = { user: 'postmark-hooks', password: 'a-long-webhook-password' }
export const TWILIO_SID = 'AC0123456789abcdef0123456789abcdef'
export const TWILIO_TOKEN = 'twilio-auth-token-for-tests'

/** The settings that turn the webhooks on: Postmark's credentials and a Twilio account (sending to `twilioApiUrl`). */
export function webhookSettings(twilioApiUrl = 'http://127.0.0.1:9') {
  return {
    postmarkWebhook: POSTMARK_WEBHOOK,
    sms: {
      kind: 'twilio' as const,
      accountSid: TWILIO_SID,
      authToken: TWILIO_TOKEN,
      from: '+15005550006',
      apiUrl: twilioApiUrl,
      timeoutMs: 2_000,
    },
  }
}

/** `Authorization: Basic …` of a pair, as a provider (or the fuzzer) sends it. */
export const basic = ({ user, password }: { user: string; password: string }) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/** A Postmark webhook, with the configured credentials unless others are given (or none: `null`). */
export function postmarkWebhook(
  server: TestServer,
  payload: unknown,
  credentials: { user: string; password: string } | null = POSTMARK_WEBHOOK,
) {
  return fetch(`${server.url}/webhooks/postmark`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(credentials ? { authorization: basic(credentials) } : {}) },
    body: JSON.stringify(payload),
  })
}

/**
 * A Twilio callback to `path` (with its query), form-encoded and signed as Twilio signs it: the
 * `twilio` package's own signature over the service's `PUBLIC_URL` + path and the fields.
 */
export function twilioCallback(
  server: TestServer,
  path: string,
  fields: Record<string, string>,
  { token = TWILIO_TOKEN, signature, headers = {} }: { token?: string; signature?: string | null; headers?: Record<string, string> } = {},
) {
  const signed = signature === undefined ? twilio.getExpectedTwilioSignature(token, `${server.config.publicUrl}${path}`, fields) : signature
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signed === null ? {} : { 'x-twilio-signature': signed }),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  })
}

type Sent = { outboxMessageId: string; providerMessageId: string; email: string }

// Postmark's documented payloads (https://postmarkapp.com/developer/webhooks), typed by its SDK.

export const postmarkDelivery = (sent: Sent): Models.DeliveryWebhook => ({
  RecordType: 'Delivery',
  ServerID: 23,
  MessageStream: 'outbound',
  MessageID: sent.providerMessageId,
  Recipient: sent.email,
  Tag: 'gallery-link',
  DeliveredAt: '2026-11-26T16:33:54.9070259Z',
  Details: 'Test delivery webhook details',
  Metadata: { outboxMessageId: sent.outboxMessageId },
})

export const postmarkBounce = (
  sent: Sent,
  type: 'HardBounce' | 'SoftBounce' = 'HardBounce',
): Models.BounceWebhook & { RecordType: 'Bounce' } => ({
  RecordType: 'Bounce',
  ID: 4323372036,
  Type: type,
  TypeCode: type === 'HardBounce' ? 1 : 4096,
  Name: type === 'HardBounce' ? 'Hard bounce' : 'Soft bounce',
  Tag: 'gallery-link',
  MessageID: sent.providerMessageId,
  ServerID: 23,
  MessageStream: 'outbound',
  Description:
    type === 'HardBounce'
      ? 'The server was unable to deliver your message (ex: unknown user, mailbox not found).'
      : 'Unable to temporarily deliver this email.',
  // The receiving server's words quote the address: the service must not keep them.
  Details: `smtp;550 5.1.1 <${sent.email}>: Recipient address rejected: User unknown`,
  Email: sent.email,
  From: 'photos@example.com',
  BouncedAt: '2026-11-26T16:34:54.9070259Z',
  DumpAvailable: true,
  Inactive: type === 'HardBounce',
  CanActivate: true,
  Subject: 'Your photos from the test event',
  Content: 'Return-Path: <>',
  Metadata: { outboxMessageId: sent.outboxMessageId },
})

export const postmarkSpamComplaint = (sent: Sent): Models.SpamComplaintWebhook => ({
  RecordType: 'SpamComplaint',
  ID: 42,
  Type: 'SpamComplaint',
  TypeCode: 512,
  Name: 'Spam complaint',
  Tag: 'gallery-link',
  MessageID: sent.providerMessageId,
  ServerID: 1234,
  Description: 'The subscriber explicitly marked this message as spam.',
  Details: 'Test spam complaint details',
  Email: sent.email,
  From: 'photos@example.com',
  BouncedAt: '2026-11-26T16:35:54.9070259Z',
  DumpAvailable: true,
  Inactive: true,
  CanActivate: false,
  Subject: 'Your photos from the test event',
  MessageStream: 'outbound',
  Metadata: { outboxMessageId: sent.outboxMessageId },
})

export const postmarkSubscriptionChange = (email: string, suppress: boolean): Models.SubscriptionChangeWebhook => ({
  RecordType: 'SubscriptionChange',
  MessageID: '00000000-0000-0000-0000-000000000000',
  ServerID: 23,
  MessageStream: 'outbound',
  ChangedAt: '2026-11-26T16:36:54.9070259Z',
  Recipient: email,
  Origin: suppress ? 'Recipient' : 'Customer',
  SuppressSending: suppress,
  SuppressionReason: suppress ? 'ManualSuppression' : '',
  Tag: 'gallery-link',
  Metadata: {},
})

/** Twilio's status callback fields (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status). */
export const twilioStatus = (sid: string, to: string, status: string, errorCode?: string): Record<string, string> => ({
  SmsSid: sid,
  SmsStatus: status,
  MessageStatus: status,
  To: to,
  MessageSid: sid,
  AccountSid: TWILIO_SID,
  From: '+15005550006',
  ApiVersion: '2010-04-01',
  ...(errorCode ? { ErrorCode: errorCode } : {}),
})

/** An SMS a guest sent to the service's number (https://www.twilio.com/docs/messaging/guides/webhook-request). */
/** A guest's SMS as Twilio posts it; each message has a sid of its own, as Twilio gives it. */
export const twilioInbound = (from: string, body: string, sid = `SM${randomBytes(16).toString('hex')}`): Record<string, string> => ({
  ToCountry: 'US',
  SmsMessageSid: sid,
  NumMedia: '0',
  SmsSid: sid,
  SmsStatus: 'received',
  Body: body,
  To: '+15005550006',
  NumSegments: '1',
  MessageSid: sid,
  AccountSid: TWILIO_SID,
  From: from,
  ApiVersion: '2010-04-01',
  ...(body.trim().toUpperCase() === 'STOP' ? { OptOutType: 'STOP' } : {}),
})
