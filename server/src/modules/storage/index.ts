/**
 * The storage module's front door: what other modules and the app may use. Anything not exported here is
 * the module's own (a lint rule, .dependency-cruiser.js, refuses a deep import from outside).
 */
export { purgeCdn } from './cdn-purge.js'
export { ChunkPool } from './chunk-pool.js'
export { createStorage } from './create-storage.js'
export { exifOrientation, readJpegSize } from './jpeg-size.js'
export { EntityTooLargeError, type LocalStorage, ObjectExistsError } from './local-storage.js'
export {
  contentTypeOf,
  copyKey,
  type Expected,
  isPhotoKey,
  PhotoChangedError,
  type PhotoStorage,
  requireStorage,
  sessionPrefix,
  type StoredObject,
  UPLOAD_URL_TTL_SECONDS,
  type UploadTarget,
} from './storage.js'
