import { AsyncLocalStorage } from 'node:async_hooks'

import { escapeHtml } from '../../html.js'
import type { SuppressionReason } from '../../db/entities/suppression.entity.js'

/** A gallery link as the providers need it. */
export type OutgoingMessage = {
  id: string
  channel: 'email' | 'sms'
  recipient: string
  link: string
  eventName: string
  guestName: string
  /** Who the message says it is from: the brand (`SMS_SENDER_NAME`) or the event's name. */
  senderName: string
  /** The event's privacy notice, linked from the email when it has one. */
  privacyNoticeUrl: string | null
  /** The event's branding (events' `brandingOf`): the email's logo, button colour and footer. */
  branding?: MessageBranding
}

export type MessageBranding = {
  businessName?: string
  businessUrl?: string
  accentColor?: string
  tagline?: string
  logo?: { url: string; width: number; height: number }
}

/** The last line of every SMS: carriers and the law expect a way out, and Twilio honours STOP itself. */
export const SMS_OPT_OUT = 'Reply STOP to opt out'

export type Sent = { providerMessageId: string }

/**
 * One channel's provider: `send` resolves with the provider's id, or throws. A provider that takes
 * several messages in one request (Postmark's `/email/batch`) also has `sendBatch`, for up to
 * `maxBatch` messages: one outcome per message, in order, or a throw when the request as a whole
 * failed (every message then shares the error).
 */
export type Transport = {
  send(message: OutgoingMessage): Promise<Sent>
  maxBatch?: number
  sendBatch?(messages: OutgoingMessage[]): Promise<Outcome[]>
}

/** A channel without a transport is "not configured": its messages wait, nothing crashes. */
export type Transports = Partial<Record<OutgoingMessage['channel'], Transport>>

/**
 * A refusal that retrying cannot change (an inactive or invalid recipient): the message fails at once.
 * `suppress`: the provider refuses the address itself for good (it unsubscribed, it is inactive), which
 * puts it on the suppression list.
 */
export class PermanentFailure extends Error {
  readonly suppress: SuppressionReason | undefined
  constructor(message: string, options?: { cause?: unknown; suppress?: SuppressionReason }) {
    super(message, options)
    this.name = 'PermanentFailure'
    this.suppress = options?.suppress
  }
}

/**
 * The provider is over its rate (HTTP 429: Twilio's 20429, Postmark's rate limit): transient, and
 * a sign to slow the channel down. `retryAfterMs` is the provider's Retry-After, when it gave one.
 */
export class Throttled extends Error {
  readonly retryAfterMs: number | undefined
  constructor(message: string, retryAfterMs?: number, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'Throttled'
    this.retryAfterMs = retryAfterMs
  }
}

/** What became of one message of a batch: sent, or the error a single send would have thrown. */
export type Outcome = { sent: Sent } | { error: unknown }

/** The Retry-After of a response (seconds or an HTTP date) in milliseconds, when it holds one. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * Where an SDK's HTTP layer leaves what its errors do not carry (the Retry-After of a 429), for the
 * send that made the request: each send runs in a store of its own.
 */
export const responseHints = new AsyncLocalStorage<{ retryAfterMs?: number }>()

/** The words of the gallery link, for email and SMS alike, dressed in the event's branding when it has one. */
export function composeGalleryLink(message: OutgoingMessage) {
  const greeting = message.guestName ? `Hi ${message.guestName},` : 'Hi,'
  const subject = `Your photos from ${message.eventName}`
  const privacy = message.privacyNoticeUrl
  const brand = message.branding ?? {}
  const text =
    `${greeting}\n\nYour photos from ${message.eventName} are ready:\n${message.link}\n\nView them, download them one by one or all at once as a zip.\n` +
    (brand.businessName ? `\n${brand.businessName}${brand.businessUrl ? ` · ${brand.businessUrl}` : ''}\n` : '') +
    (privacy ? `\nHow we handle your details: ${privacy}\n` : '')
  const accent = brand.accentColor ?? '#111111'
  const small = 'color:#555;font-size:13px'
  // A logo at most 200 px wide and 60 high in the mail, in its proportions (mail clients ignore CSS max sizes).
  const logo = brand.logo && fitBox(brand.logo, 200, 60)
  const header = brand.logo
    ? `<p><img src="${escapeHtml(brand.logo.url)}" width="${logo!.width}" height="${logo!.height}" alt="${escapeHtml(brand.businessName ?? message.eventName)}" style="border:0;display:block"></p>\n`
    : ''
  const footer = brand.businessName
    ? `\n<p style="${small};border-top:1px solid #ddd;padding-top:12px">${
        brand.businessUrl
          ? `<a href="${escapeHtml(brand.businessUrl)}" style="color:#555">${escapeHtml(brand.businessName)}</a>`
          : escapeHtml(brand.businessName)
      }</p>`
    : ''
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
${header}<p>${escapeHtml(greeting)}</p>
<p>Your photos from <strong>${escapeHtml(message.eventName)}</strong> are ready.</p>${brand.tagline ? `\n<p>${escapeHtml(brand.tagline)}</p>` : ''}
<p><a href="${escapeHtml(message.link)}" style="display:inline-block;padding:10px 18px;background:${accent};color:${readableOn(accent)};border-radius:6px;text-decoration:none">See your photos</a></p>
<p style="${small}">Or open this link: ${escapeHtml(message.link)}</p>${
    privacy ? `\n<p style="${small}"><a href="${escapeHtml(privacy)}">How we handle your details</a></p>` : ''
  }${footer}
</body></html>`
  // The sender first (an SMS shows only a number), the event when the sender is a brand.
  const from = message.senderName === message.eventName ? `${message.senderName}:` : `${message.senderName}: from ${message.eventName},`
  const sms = `${from} your photos are ready: ${message.link}\n${SMS_OPT_OUT}`
  return { subject, text, html, sms }
}

/** A size inside a box, in the same proportions (never larger than it was). */
function fitBox(size: { width: number; height: number }, width: number, height: number) {
  const scale = Math.min(1, width / size.width, height / size.height)
  return { width: Math.round(size.width * scale), height: Math.round(size.height * scale) }
}

/**
 * Black or white, whichever reads better on `#rrggbb` by WCAG's contrast ratio: staff pick the
 * accent, and a guest must still read the button.
 */
export function readableOn(hex: string): '#000000' | '#ffffff' {
  const channel = (at: number) => {
    const value = parseInt(hex.slice(at, at + 2), 16) / 255
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
  // Contrast with white (1.05 / (L + 0.05)) against contrast with black ((L + 0.05) / 0.05).
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000'
}
