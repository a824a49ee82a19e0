import type { StorageSettings } from '../../config.js'
import { createLocalStorage } from './local-storage.js'
import { createS3Storage } from './s3-storage.js'
import type { PhotoStorage } from './storage.js'

/**
 * The storage the settings name: S3, the local bucket (development), or none (production without a
 * bucket). `onOutage`: a call the bucket failed or did not answer (counted in the metrics).
 */
export function createStorage(
  settings: StorageSettings,
  publicUrl: string,
  now: () => Date,
  onOutage?: () => void,
): PhotoStorage | undefined {
  switch (settings.kind) {
    case 's3':
      return createS3Storage({ ...settings, now, onOutage })
    case 'local':
      return createLocalStorage({ root: settings.root, publicUrl, secret: settings.secret, now })
    case 'none':
      return undefined
  }
}
