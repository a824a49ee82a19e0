import { Router } from 'express'

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
): Router {
  return Router().use(galleryFileRoutes(services), galleryReads(services, versions))
}
