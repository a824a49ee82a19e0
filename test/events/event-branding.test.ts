import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery } from '../support/gallery-fixture.js'
import { uniqueSlug, type TestServer } from '../support/harness.js'
import { startStaffTestServer, staffFetch, type StaffSession } from '../support/staff.js'

let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  ;({ app, staff } = await startStaffTestServer())
})
afterAll(() => app?.stop())

const api = (path: string, init?: { method?: string; body?: unknown }) => staffFetch(app, staff, path, init)
const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`

/** A wide logo as a designer exports one: 1600×400 with transparency, and EXIF that must not reach a guest. */
async function makeLogo(): Promise<Buffer> {
  return sharp({ create: { width: 1600, height: 400, channels: 4, background: { r: 180, g: 35, b: 90, alpha: 0.8 } } })
    .withExif({ IFD0: { Artist: 'Designer Name', Software: 'Logo tool' } })
    .png()
    .toBuffer()
}

async function createEvent(): Promise<{ id: string; slug: string }> {
  const response = await api('/staff/events', { method: 'POST', body: { slug: uniqueSlug(), name: 'Emma & Liam', startAt: Date.now() } })
  expect(response.status).toBe(201)
  return response.json()
}

const BRANDING = {
  businessName: 'Flashbulb Booths',
  businessUrl: 'https://flashbulb.example.com/',
  accentColor: '#b4235a',
  tagline: 'Thanks for celebrating with us!',
}

describe('event branding, language and kiosk idle time', () => {
  it('when staff brand an event with a logo, then the staff answer, the kiosk context and the gallery carry it, and the logo is a small PNG without metadata, cached for a year', async () => {
    const event = await createEvent()
    const changed = await api(`/staff/events/${event.id}`, {
      method: 'PATCH',
      body: { branding: { ...BRANDING, logo: dataUrl('image/png', await makeLogo()) }, language: 'es', kioskIdleSeconds: 45 },
    })
    expect(changed.status).toBe(200)
    const answer = await changed.json()
    expect(answer).toMatchObject({ language: 'es', kioskIdleSeconds: 45, branding: { ...BRANDING, logo: { width: 800, height: 200 } } })
    const logoUrl: string = answer.branding.logo.url
    expect(logoUrl.startsWith(`${app.url}/brand/${event.id}/`)).toBe(true)

    const logo = await fetch(logoUrl)
    expect(logo.status).toBe(200)
    expect(logo.headers.get('content-type')).toBe('image/png')
    expect(logo.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const bytes = Buffer.from(await logo.arrayBuffer())
    const meta = await sharp(bytes).metadata()
    expect({ format: meta.format, width: meta.width, height: meta.height, exif: meta.exif }).toEqual({
      format: 'png',
      width: 800,
      height: 200,
      exif: undefined,
    })
    expect(bytes.includes(Buffer.from('Designer Name'))).toBe(false)

    const { sessionId } = await makeLiveGallery(app, { setId: await addSet(event.id) })
    const gallery = await (await fetch(`${app.url}/gallery/${sessionId}`)).json()
    expect(gallery.event.branding).toEqual(answer.branding)

    const setSlug = (await (await api(`/staff/events/${event.id}`)).json()).sets[0].slug
    const kiosk = await (await fetch(`${app.url}/events/${event.slug}/sets/${setSlug}`)).json()
    expect(kiosk.event).toMatchObject({ language: 'es', kioskIdleSeconds: 45, branding: answer.branding })
  })

  it('when the logo is replaced or removed, then its old URL answers Not Found and the rest of the branding stays as sent', async () => {
    const event = await createEvent()
    const first = await (
      await api(`/staff/events/${event.id}`, {
        method: 'PATCH',
        body: { branding: { ...BRANDING, logo: dataUrl('image/png', await makeLogo()) } },
      })
    ).json()
    const jpeg = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer()
    const second = await (
      await api(`/staff/events/${event.id}`, {
        method: 'PATCH',
        body: { branding: { businessName: 'New name', logo: dataUrl('image/jpeg', jpeg) } },
      })
    ).json()
    expect(second.branding).toEqual({ businessName: 'New name', logo: { url: expect.any(String), width: 300, height: 100 } })
    expect((await fetch(first.branding.logo.url)).status).toBe(404)
    expect((await fetch(second.branding.logo.url)).status).toBe(200)

    const kept = await (await api(`/staff/events/${event.id}`, { method: 'PATCH', body: { branding: { accentColor: '#0a7c4a' } } })).json()
    expect(kept.branding).toEqual({ accentColor: '#0a7c4a', logo: second.branding.logo })
    const removed = await (await api(`/staff/events/${event.id}`, { method: 'PATCH', body: { branding: { logo: null } } })).json()
    expect(removed.branding).toEqual({})
    expect((await fetch(second.branding.logo.url)).status).toBe(404)
  })

  it('when the logo is not an image the service reads, or too large, then 400 invalid_logo at its field and nothing changes', async () => {
    const event = await createEvent()
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')
    const notPng = Buffer.from('this is not a picture at all')
    // 5 megapixels in a few hundred bytes, as a decompression bomb is made; and a plain 49 KB file.
    const huge = await sharp({ create: { width: 2500, height: 2000, channels: 3, background: '#ffffff' } })
      .webp({ lossless: true })
      .toBuffer()
    const heavy = await sharp(Buffer.from(Array.from({ length: 130 * 130 * 3 }, (_, i) => (i * 7919) % 251)), {
      raw: { width: 130, height: 130, channels: 3 },
    })
      .png({ compressionLevel: 0 })
      .toBuffer()
    expect(heavy.length).toBeGreaterThan(48 * 1024)
    for (const logo of [dataUrl('image/png', gif), dataUrl('image/png', notPng), dataUrl('image/webp', huge)]) {
      const response = await api(`/staff/events/${event.id}`, { method: 'PATCH', body: { branding: { businessName: 'X', logo } } })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        code: 'invalid_logo',
        field: 'branding.logo',
        error: expect.stringMatching(/^The logo /),
      })
    }
    // Over 48 KB, its data: URL is over the body's 64 KB.
    const tooHeavy = await api(`/staff/events/${event.id}`, { method: 'PATCH', body: { branding: { logo: dataUrl('image/png', heavy) } } })
    expect(await tooHeavy.json()).toMatchObject({ code: 'body_too_large' })
    const refused = await api(`/staff/events/${event.id}`, { method: 'PATCH', body: { branding: { accentColor: 'red' }, language: 'fr' } })
    expect(refused.status).toBe(400)
    const unchanged = await (await api(`/staff/events/${event.id}`)).json()
    expect(unchanged).toMatchObject({ branding: {}, language: null, kioskIdleSeconds: null })
  })
})

async function addSet(eventId: string): Promise<string> {
  const response = await api(`/staff/events/${eventId}/sets`, { method: 'POST', body: { slug: 'photo-wall', name: 'Photo Wall' } })
  expect(response.status).toBe(201)
  return (await response.json()).id
}
