/**
 * The gallery module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { sendChunks } from './bytes-routes.js'
export { attachment } from './gallery-files.service.js'
export {
  answeredNotModified,
  cacheControlOf,
  GALLERY_KEY,
  readEventPageVersion,
  readGalleryVersion,
  VersionCache,
  versionTag,
} from './gallery-versions.js'
export { galleryRoutes } from './gallery.routes.js'
export { GALLERY_QUERIES, PHOTO_FILE_QUERIES, type PhotoFileRow } from './gallery.queries.js'
export { type EventPage, type Gallery, NO_SUCH_GALLERY, readLiveGallery, readPublicEventPage } from './gallery.service.js'
export { photoUrl } from './photo-url.js'
