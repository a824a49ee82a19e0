import { createHash } from 'node:crypto'

import type { Request, Response } from 'express'

import type { AppContext } from '../../context.js'
import { GALLERY_QUERIES, type EventVersionRow, type GalleryVersionRow } from './gallery.queries.js'

/**
 * Galleries and event pages as a CDN may keep them: a minute fresh, then served stale for up to
 * ten while it revalidates (cheaply: a 304 is one small query). A deleted gallery is gone from
 * caches within the minute; nothing has to be purged by hand.
 */
/** A session id or an event slug as a gallery route can name one (the contract's `Id` shape): anything else names nothing, without a query. */
export const GALLERY_KEY = /^[A-Za-z0-9_-]{1,64}$/

export const GALLERY_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=600'

/**
 * A weak validator (pages are compressed, so bytes vary with the encoding) of what an answer
 * depends on: its kind (JSON or page, and the page's assets), this instance's addresses (photo
 * URLs are built from `CDN_URL`), and the version read from the database.
 */
export function versionTag(...parts: readonly (string | number)[]): string {
  return `W/"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`
}

export const galleryVersion = (row: GalleryVersionRow) => [row.completed_us, row.event_updated_us]
export const eventPageVersion = (row: EventVersionRow) => [row.updated_us, row.live_count, row.last_completed_us]

/** A live gallery's version; absent unless live. */
export async function readGalleryVersion({ em }: Pick<AppContext, 'em'>, sessionId: string) {
  const [row] = await em.execute<GalleryVersionRow[]>(GALLERY_QUERIES.galleryVersion, [sessionId])
  return row && galleryVersion(row)
}

/** A public event page's version; absent for an unknown or private event. */
export async function readEventPageVersion({ em }: Pick<AppContext, 'em'>, slug: string) {
  const [row] = await em.execute<EventVersionRow[]>(GALLERY_QUERIES.eventVersion, [slug])
  return row && !row.is_private ? eventPageVersion(row) : undefined
}

/** `If-None-Match` (RFC 9110, 13.1.2): `*`, or a list of tags compared weakly. */
export function matchesAny(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag))
}

type Version = readonly (string | number)[]

/**
 * A conditional read answered from the version alone, before the answer is built: 304 with its
 * validator when `If-None-Match` names the current version (tagged by `tag`); says whether it did.
 */
export async function answeredNotModified(
  req: Request,
  res: Response,
  { version, tag }: { version: () => Promise<Version | undefined>; tag: (version: Version) => string },
): Promise<boolean> {
  const ifNoneMatch = req.headers['if-none-match']
  if (!ifNoneMatch) return false
  const current = await version()
  if (!current) return false
  const etag = tag(current)
  if (!matchesAny(ifNoneMatch, etag)) return false
  res.status(304).setHeader('ETag', etag).setHeader('Cache-Control', GALLERY_CACHE_CONTROL).end()
  return true
}
