import { describe, expect, it } from 'vitest'

import { composeGalleryLink, readableOn, type OutgoingMessage } from './transport.js'

const message: OutgoingMessage = {
  id: 'm1',
  channel: 'sms',
  recipient: '+14155552671',
  link: 'https://photos.example.com/g/abc',
  eventName: 'Summer Gala',
  guestName: 'Ada',
  senderName: 'Summer Gala',
  privacyNoticeUrl: null,
}

describe('the words of a gallery link', () => {
  it('when no brand is set, then the SMS opens with the event, as its sender, and ends with the opt-out line', () => {
    expect(composeGalleryLink(message).sms).toBe(
      'Summer Gala: your photos are ready: https://photos.example.com/g/abc\nReply STOP to opt out',
    )
  })

  it('when a brand is set, then the SMS opens with the brand and names the event', () => {
    expect(composeGalleryLink({ ...message, senderName: 'Acme Booths' }).sms).toBe(
      'Acme Booths: from Summer Gala, your photos are ready: https://photos.example.com/g/abc\nReply STOP to opt out',
    )
  })

  it('when the event has a privacy notice, then the email links it (text and HTML); without one, it says nothing of it', () => {
    const withNotice = composeGalleryLink({
      ...message,
      channel: 'email',
      privacyNoticeUrl: 'https://booths.example.com/privacy?v=2&x=<y>',
    })
    expect(withNotice.text).toContain('How we handle your details: https://booths.example.com/privacy?v=2&x=<y>')
    expect(withNotice.html).toContain('<a href="https://booths.example.com/privacy?v=2&amp;x=&lt;y&gt;">How we handle your details</a>')
    const without = composeGalleryLink({ ...message, channel: 'email' })
    expect(without.text).not.toContain('How we handle')
    expect(without.html).not.toContain('How we handle')
  })
})

describe("the button's words on the event's accent colour", () => {
  it('when the accent is light, then black; when dark, then white (whichever contrast is higher)', () => {
    expect(['#f5c518', '#ffffff', '#9be7ff'].map(readableOn)).toEqual(['#000000', '#000000', '#000000'])
    expect(['#111111', '#b4235a', '#1a4fd6'].map(readableOn)).toEqual(['#ffffff', '#ffffff', '#ffffff'])
  })
})
