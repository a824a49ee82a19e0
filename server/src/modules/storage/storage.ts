import type { Readable } from 'node:stream'

import { AppError } from '../../errors.js'
import type { ChunkPool } from './chunk-pool.js'

/** Photos are JPEG only: presigned uploads bind this content type. */
export const PHOTO_CONTENT_TYPE = 'image/jpeg'

/** What a booth needs to upload one photo straight to storage. */
export type UploadTarget = {
  key: string
  url: string
  method: 'PUT'
  /** Send exactly these headers: the signature covers them. */
  headers: Record<string, string>
  /** Milliseconds since the epoch. */
  expiresAt: number
}

/** One interface, two places: an S3-compatible bucket, or a folder on disk in development. */
export type PhotoStorage = {
  readonly kind: 'local' | 's3'
  presignUpload(key: string, expiresInSeconds: number): Promise<UploadTarget>
  /** Size of a stored object, or undefined when there is none under the key. */
  head(key: string): Promise<{ size: number } | undefined>
  /** Bytes [start, start + length) of a stored object, fewer at its end. */
  readRange(key: string, start: number, length: number): Promise<Buffer>
  /**
   * `chunkBytes` suggests a read size where the storage chooses one (the local bucket); with
   * `pool`, the local bucket reads into the pool's buffers, and the reader of the stream gives
   * each chunk back when it is done with it.
   */
  openStream(key: string, options?: { chunkBytes?: number; pool?: ChunkPool }): Promise<Readable>
  put(key: string, body: Buffer): Promise<void>
}

/** In production without a bucket, the routes that need one answer 503; nothing is faked. */
export function requireStorage(storage: PhotoStorage | undefined): PhotoStorage {
  if (!storage) throw new AppError('SERVICE_UNAVAILABLE', 'photo storage is not configured')
  return storage
}

/** Keys this service writes and accepts: `sessions/<session id>/<photo id>.jpg`, nothing else. */
const PHOTO_KEY = /^sessions\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\.jpg$/

export function isPhotoKey(key: string): boolean {
  return PHOTO_KEY.test(key)
}

export function sessionPrefix(sessionId: string): string {
  return `sessions/${sessionId}/`
}
