import type { RequestHandler } from 'express'

import type { Services } from '../../context.js'
import { galleryFileRoutes } from './bytes-routes.js'
import { galleryReads } from './gallery-reads.js'
import type { VersionCache } from './gallery-versions.js'

/**
 * Every route of the gallery's contract (`gallery`), all answered by Express, mounted from here:
 * the files (photos and the zip, streamed) before the two reads, so that `/gallery/<id>/zip` is the
 * zip's and `/gallery/events/zip` the event page's (http/edge.ts). docs/architecture.md says why.
 */
export function galleryRoutes(
  services: Pick<Services, 'orm' | 'config' | 'storage' | 'now' | 'logger' | 'metrics' | 'imageLimit'>,
  versions: VersionCache,
): RequestHandler {
  const files = galleryFileRoutes(services)
  const reads = galleryReads(services, versions)
  // One after the other, as a router would run them, without one more router on the reads' way.
  return (req, res, next) => files(req, res, (error?: unknown) => (error ? next(error) : reads(req, res, next)))
}
