import { escapeHtml } from '../../html.js'

/** A gallery link as the providers need it. */
export type OutgoingMessage = {
  id: string
  channel: 'email' | 'sms'
  recipient: string
  link: string
  eventName: string
  guestName: string
}

export type Sent = { providerMessageId: string }

/** One channel's provider: resolves with the provider's id, or throws. */
export type Transport = { send(message: OutgoingMessage): Promise<Sent> }

/** A channel without a transport is "not configured": its messages wait, nothing crashes. */
export type Transports = Partial<Record<OutgoingMessage['channel'], Transport>>

/** A refusal that retrying cannot change (an inactive or invalid recipient): the message fails at once. */
export class PermanentFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'PermanentFailure'
  }
}

/** The words of the gallery link, for email and SMS alike. */
export function composeGalleryLink(message: OutgoingMessage) {
  const greeting = message.guestName ? `Hi ${message.guestName},` : 'Hi,'
  const subject = `Your photos from ${message.eventName}`
  const text = `${greeting}\n\nYour photos from ${message.eventName} are ready:\n${message.link}\n\nView them, download them one by one or all at once as a zip.\n`
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>${escapeHtml(greeting)}</p>
<p>Your photos from <strong>${escapeHtml(message.eventName)}</strong> are ready.</p>
<p><a href="${escapeHtml(message.link)}" style="display:inline-block;padding:10px 18px;background:#111;color:#fff;border-radius:6px;text-decoration:none">See your photos</a></p>
<p style="color:#555;font-size:13px">Or open this link: ${escapeHtml(message.link)}</p>
</body></html>`
  const sms = `Your photos from ${message.eventName} are ready: ${message.link}`
  return { subject, text, html, sms }
}
