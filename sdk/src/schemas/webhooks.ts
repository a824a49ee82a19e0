import { z } from 'zod'

import { EpochMillis } from './common.js'

/**
 * What the providers send, as far as the service reads it: every other field is accepted and
 * ignored (a provider adds fields over time). The payloads are the providers' documented shapes.
 */

/** A Postmark webhook (https://postmarkapp.com/developer/webhooks/webhooks-overview), by `RecordType`. */
export const PostmarkWebhook = z
  .looseObject({
    RecordType: z
      .string()
      .max(100)
      .describe(
        '`Delivery`, `Bounce`, `SpamComplaint` and `SubscriptionChange` are read; any other (`Open`, `Click`) is acknowledged and ignored',
      ),
    MessageID: z.string().max(200).optional().describe("Postmark's id of the message, as it answered the send"),
    Metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The metadata the service sent with the message: `outboxMessageId` names the guest's message"),
    Recipient: z.string().max(320).optional().describe('Delivery and SubscriptionChange: the address'),
    Email: z.string().max(320).optional().describe('Bounce and SpamComplaint: the address'),
    Type: z.string().max(100).optional().describe('Bounce: `HardBounce`, `SoftBounce`, `Transient`, …'),
    Name: z.string().max(200).optional(),
    Description: z.string().max(2000).optional(),
    Inactive: z.boolean().optional().describe('Bounce: Postmark deactivated the address (it will not send to it again)'),
    DeliveredAt: z.string().max(100).optional(),
    SuppressSending: z.boolean().optional().describe('SubscriptionChange: true when the address is now suppressed, false when reactivated'),
    SuppressionReason: z.string().max(100).nullable().optional(),
  })
  .meta({
    examples: [
      {
        RecordType: 'Bounce',
        MessageStream: 'outbound',
        ID: 4323372036,
        Type: 'HardBounce',
        TypeCode: 1,
        Name: 'Hard bounce',
        Tag: 'gallery-link',
        MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
        Metadata: { outboxMessageId: 'P9sD1fG4hJ7kL0zX3cV6bN-1-email' },
        ServerID: 23,
        Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
        Details: 'Test bounce details',
        Email: 'ada@example.org',
        From: 'photos@example.com',
        BouncedAt: '2026-11-26T16:33:54.9070259Z',
        DumpAvailable: true,
        Inactive: true,
        CanActivate: true,
        Subject: 'Your photos from Smith wedding',
      },
    ],
  })

/**
 * A Twilio status callback (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status),
 * form-encoded, signed with `X-Twilio-Signature`.
 */
export const TwilioStatusCallback = z
  .looseObject({
    MessageSid: z.string().max(64),
    MessageStatus: z
      .string()
      .max(40)
      .describe('`delivered` and `read` mark the message delivered; `undelivered` and `failed` undelivered; the others change nothing'),
    ErrorCode: z.string().max(10).optional().describe("The carrier's or Twilio's error code, with `undelivered` and `failed`"),
    To: z.string().max(40).optional(),
    AccountSid: z.string().max(64).optional(),
  })
  .meta({
    examples: [
      {
        MessageSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
        MessageStatus: 'undelivered',
        ErrorCode: '30003',
        To: '+393471234567',
        From: '+15005550006',
        AccountSid: 'AC0123456789abcdef0123456789abcdef',
        ApiVersion: '2010-04-01',
      },
    ],
  })

/** An SMS a guest sent to the service's number (https://www.twilio.com/docs/messaging/guides/webhook-request), signed likewise. */
export const TwilioInboundMessage = z
  .looseObject({
    From: z.string().max(40),
    Body: z.string().max(2000).optional().describe("`STOP` (and Twilio's other opt-out words) suppresses the sender; `START` lifts it"),
    OptOutType: z.string().max(20).optional().describe("Twilio's Advanced Opt-Out: `STOP`, `START` or `HELP`"),
  })
  .meta({ examples: [{ MessageSid: 'SM2f0e8ae6ade43cb3c0ce4525424e404f', From: '+393471234567', To: '+15005550006', Body: 'STOP' }] })

export const SUPPRESSION_CHANNELS = ['email', 'sms'] as const

/** Why an address is suppressed. */
export const SUPPRESSION_REASONS = ['hard-bounce', 'spam-complaint', 'unsubscribed', 'inactive-recipient'] as const

export const Suppression = z
  .object({
    channel: z.enum(SUPPRESSION_CHANNELS),
    reason: z
      .enum(SUPPRESSION_REASONS)
      .describe(
        '`hard-bounce` and `spam-complaint` (Postmark), `unsubscribed` (an SMS STOP, Twilio 21610, or Postmark’s subscription change), `inactive-recipient` (Postmark refused the send: 406)',
      ),
    since: EpochMillis.describe('When it was suppressed'),
  })
  .meta({ examples: [{ channel: 'email', reason: 'hard-bounce', since: 1_764_173_634_907 }] })
