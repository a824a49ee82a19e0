import { createHash } from 'node:crypto'

import type { AppContext } from '../../context.js'
import { GALLERY_QUERIES, type EventVersionRow, type GalleryVersionRow } from './gallery.queries.js'

/**
 * Galleries and event pages as a CDN may keep them: a minute fresh, then served stale for up to
 * ten while it revalidates (cheaply: a 304 is one small query). A deleted gallery is gone from
 * caches within the minute; nothing has to be purged by hand.
 */
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
