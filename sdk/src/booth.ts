/**
 * The booth's entry, `@photobooth/sdk/booth`: a client of the booth's routes only (with its booth
 * key), the upload helper, and the errors a booth app handles.
 */
import { connect, type ClientOptions } from './client.js'
import routes from './generated/booth-routes.json' with { type: 'json' }
import type { PhotoBoothClient } from './index.js'
import { registerUploader } from './registry.js'
import { resumeUpload } from './upload.js'

export * from './entry-common.js'
export { uploadPhotos } from './upload.js'
export type { CompletedSession, PhotoSource, StorageError, StorageErrorCode, UploadError, UploadOptions } from './upload.js'
export { galleryLink } from './urls.js'

/** The booth's routes (`listEvents`, `listQueue`, `createUploads`, `complete`, `cancel`), typed as in `createClient`'s client. */
export type BoothClient = Pick<PhotoBoothClient, 'booth'>

/** A client for a booth app: `createBoothClient({ baseUrl, boothKey }).booth.listQueue(…)`. */
export function createBoothClient(options: Omit<ClientOptions, 'staffCookies'> & { boothKey: string }): BoothClient {
  const client = connect<BoothClient>(routes, options)
  registerUploader(client, resumeUpload)
  return client
}
