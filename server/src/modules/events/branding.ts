import { createHash } from 'node:crypto'

import sharp from 'sharp'

import { AppError } from '../../errors.js'
import type { BrandingText } from '../../db/entities/event.entity.js'
import type { BrandingRow } from './events.queries.js'

export type { Language } from '../../db/entities/event.entity.js'

/** The logo as served: at most this, shrunk to fit (a header's logo is a line high, a little wider on a desktop). */
const LOGO_BOX = { width: 800, height: 240 } as const
/** Refused before decoding: no logo needs more (a small file can claim a huge frame). */
const MAX_LOGO_PIXELS = 4_000_000

export type StoredLogo = { logoPng: Buffer; logoHash: string; logoWidth: number; logoHeight: number }

const invalidLogo = (why: string) => new AppError('invalid_logo', `The logo ${why}`, { field: 'branding.logo' })

/**
 * The logo staff gave (a PNG, JPEG or WebP as a data: URL), as the service stores and serves it: a
 * PNG that fits 800×240, upright, without any metadata, named by its hash. Re-encoding it means a
 * guest's browser only ever gets an image this service wrote, whatever the upload held.
 */
export async function makeLogo(dataUrl: string): Promise<StoredLogo> {
  // At most 48 KB: its data: URL travels in a JSON body of at most 64 KB.
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64')
  let made: { data: Buffer; info: sharp.OutputInfo }
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_LOGO_PIXELS })
    const { format } = await image.metadata()
    if (format !== 'png' && format !== 'jpeg' && format !== 'webp') throw invalidLogo('is not a PNG, JPEG or WebP image')
    made = await image
      .rotate()
      .resize(LOGO_BOX.width, LOGO_BOX.height, { fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 9 })
      .toBuffer({ resolveWithObject: true })
  } catch (error) {
    if (error instanceof AppError) throw error
    throw invalidLogo(/pixel limit/i.test(String(error)) ? 'has more than 4 megapixels' : 'could not be read as an image')
  }
  const logoHash = createHash('sha256').update(made.data).digest('base64url').slice(0, 22)
  return { logoPng: made.data, logoHash, logoWidth: made.info.width, logoHeight: made.info.height }
}

/** Where an event's logo is served: under its hash, so that a new logo is a new URL and caches keep each for a year. */
export const logoPath = (eventId: string, hash: string) => `/brand/${encodeURIComponent(eventId)}/${hash}.png`

type BrandingColumns = {
  id: string
  branding?: BrandingText | null
  logoHash?: string | null
  logoWidth?: number | null
  logoHeight?: number | null
}

/** An event's branding as the API answers it (`EventBranding`), or undefined when it has none. */
export function brandingOf(event: BrandingColumns, publicUrl: string) {
  const { businessName, businessUrl, accentColor, tagline } = event.branding ?? {}
  const logo =
    event.logoHash && event.logoWidth && event.logoHeight
      ? { url: `${publicUrl}${logoPath(event.id, event.logoHash)}`, width: event.logoWidth, height: event.logoHeight }
      : undefined
  const branding = { businessName, businessUrl, accentColor, tagline, logo }
  const given = Object.fromEntries(Object.entries(branding).filter(([, value]) => value !== undefined)) as Partial<typeof branding>
  return Object.keys(given).length > 0 ? given : undefined
}

export type { BrandingRow }

export const brandingOfRow = (eventId: string, row: BrandingRow, publicUrl: string) =>
  brandingOf(
    { id: eventId, branding: row.branding, logoHash: row.logo_hash, logoWidth: row.logo_width, logoHeight: row.logo_height },
    publicUrl,
  )
