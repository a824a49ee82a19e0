import { hash } from 'node:crypto'

import type { Request, RequestHandler, Response } from 'express'

import type { AppContext } from '../../context.js'
import { GALLERY_QUERIES, type EventVersionRow, type GalleryVersionRow } from './gallery.queries.js'
import { run } from '../../db/query.js'

/** A session id or an event slug as a gallery route can name one (the contract's `Id` shape): anything else names nothing, without a query. */
export const GALLERY_KEY = /^[A-Za-z0-9_-]{1,64}$/

/**
 * Galleries and event pages as a CDN may keep them: a minute fresh, then served stale for up to
 * ten while it revalidates (cheaply: a 304 is one small query, or none: VersionCache). A deleted
 * gallery is gone from caches within the minute; nothing has to be purged by hand.
 */
export const GALLERY_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=600'

/**
 * A weak validator (pages are compressed, so bytes vary with the encoding) of what an answer
 * depends on: its kind (JSON or page, and the page's assets), this instance's addresses (photo
 * URLs are built from `CDN_URL`), and the version read from the database.
 */
export function versionTag(...parts: readonly (string | number)[]): string {
  return `W/"${hash('sha256', parts.join('\n'), 'base64url').slice(0, 27)}"`
}

export const galleryVersion = (row: GalleryVersionRow) => [
  // A session completed without its time (nullable column) joins as nothing, as it always has.
  row.completed_us ?? '',
  row.event_updated_us,
  row.images_settled,
  row.copies_coming ? MAKING : READY,
]

const READY = 'ready'
const MAKING = 'making'

/**
 * How a version's answer may be kept: while a gallery's copies are being made, a cache asks again
 * each time (`no-cache`, answered by a 304 from one small query), so that a page waiting for them
 * sees each one as it is made, not a minute later; a 304 says the same, since it renews what a
 * cache keeps.
 */
export const cacheControlOf = (version: Version) => (version.at(-1) === MAKING ? 'no-cache' : GALLERY_CACHE_CONTROL)
export const eventPageVersion = (row: EventVersionRow) => [row.updated_us, row.live_count, row.last_completed_us, row.images_settled]

/** A live gallery's version; absent unless live. */
export async function readGalleryVersion({ em }: Pick<AppContext, 'em'>, sessionId: string) {
  const [row] = await run(em, GALLERY_QUERIES.galleryVersion, [sessionId])
  return row && galleryVersion(row)
}

/** A public event page's version; absent for an unknown or private event. */
export async function readEventPageVersion({ em }: Pick<AppContext, 'em'>, slug: string) {
  const [row] = await run(em, GALLERY_QUERIES.eventVersion, [slug])
  return row && !row.is_private ? eventPageVersion(row) : undefined
}

type Version = readonly (string | number)[]

/** How long a version read for a revalidation answers the next ones without a query. */
const VERSION_TTL_MS = 1_000
/** Beyond this many keys the cache starts over: a crawler of every gallery cannot grow it. */
const MAX_CACHED_VERSIONS = 10_000

/**
 * The versions read for revalidations in the last second, by key (`sessionId:<id>`, `slug:<slug>`; the JSON's and the page's alike),
 * so that the revalidations of a busy gallery (a CDN's, or a crowd's browsers at the end of an event)
 * cost no query. Absent versions are never kept: a gallery that goes live shows at once. This
 * instance's own changes drop every version (`dropOnChange`); another instance's are seen within
 * VERSION_TTL_MS, a second on top of the minute the answers may be kept anyway.
 */
export class VersionCache {
  private readonly versions = new Map<string, { version: Version; until: number }>()
  /** Moved by every change, so that a read that began before it is not kept after it. */
  private generation = 0

  constructor(private readonly now: () => Date) {}

  async read(key: string, load: () => Promise<Version | undefined>): Promise<Version | undefined> {
    const at = this.now().getTime()
    const kept = this.versions.get(key)
    if (kept && kept.until > at) return kept.version
    const generation = this.generation
    const version = await load()
    if (version && generation === this.generation) {
      if (this.versions.size >= MAX_CACHED_VERSIONS) this.versions.clear()
      this.versions.set(key, { version, until: at + VERSION_TTL_MS })
    }
    return version
  }

  /**
   * Mounted on the paths of every change that moves a version (the booth's completions and
   * cancellations, every staff change): the versions are dropped as the change starts and again
   * once it is answered, so that no read from before its commit survives it.
   */
  readonly dropOnChange: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      this.drop()
      res.once('close', () => this.drop())
    }
    next()
  }

  private drop(): void {
    this.generation++
    this.versions.clear()
  }
}

/** `If-None-Match` (RFC 9110, 13.1.2): `*`, or a list of tags compared weakly. */
export function matchesAny(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag))
}

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
  res.status(304).setHeader('ETag', etag).setHeader('Cache-Control', cacheControlOf(current)).end()
  return true
}
