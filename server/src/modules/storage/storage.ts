import { pipeline, Transform, type Readable } from 'node:stream'

import { AppError, Fault } from '../../errors.js'
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

/** Long enough for a burst over venue Wi-Fi, short enough that a leaked URL soon dies. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60

/** What storage says of an object: its size and its ETag, which changes whenever its bytes could have. */
export type StoredObject = { size: number; etag: string }

/** What completion recorded of a photo; photos recorded before ETags were kept have none. */
export type Expected = { size: number; etag?: string }

/** One interface, two places: an S3-compatible bucket, or a folder on disk in development. */
export type PhotoStorage = {
  readonly kind: 'local' | 's3'
  /** A PUT that can only create the object, never replace one: a published photo is immutable. */
  presignUpload(key: string, expiresInSeconds: number): Promise<UploadTarget>
  /** Resolves when the bucket answers (`/readyz`'s storage check); throws otherwise. */
  check(): Promise<void>
  /** Size and ETag of a stored object, or undefined when there is none under the key. */
  head(key: string): Promise<StoredObject | undefined>
  /** Bytes [start, start + length) of a stored object, fewer at its end. */
  readRange(key: string, start: number, length: number): Promise<Buffer>
  /**
   * The object's bytes, exactly `expected.size` of them, or a stream that fails (`PhotoChangedError`)
   * when the object is no longer the one completion recorded. `chunkBytes` suggests a read size where
   * the storage chooses one (the local bucket); with `pool`, the local bucket reads into the pool's
   * buffers, and the reader of the stream gives each chunk back when it is done with it.
   */
  openStream(key: string, expected: Expected, options?: { chunkBytes?: number; pool?: ChunkPool }): Promise<Readable>
  /**
   * Deletes every object under a session's prefix (`sessions/<id>/`), the uploads that were never
   * completed included. Deleting what is already gone succeeds.
   */
  deletePrefix(prefix: string): Promise<void>
  /**
   * Stores a copy this service made (`copyKey`), unless the key already holds one: copies are
   * immutable, so a second maker's identical bytes never replace the first's (whose ETag a row may
   * already have recorded). Answers what the key holds afterwards.
   */
  putCopy(key: string, bytes: Buffer): Promise<StoredObject>
}

/** A stored photo whose size or ETag differs from what completion recorded: its bytes are not sent. */
export class PhotoChangedError extends Error {
  constructor(key: string, detail: string) {
    super(`stored photo ${key} is not the one completion recorded: ${detail}`)
    this.name = 'PhotoChangedError'
  }
}

/**
 * Passes `source` on and fails, before sending a byte too many or at an early end, unless it holds
 * exactly `size` bytes: an answer never sends more or fewer bytes than its Content-Length declared.
 */
export function exactly(source: Readable, size: number, key: string): Readable {
  let seen = 0
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      done(seen > size ? new PhotoChangedError(key, `more than the ${size} bytes recorded`) : null, chunk)
    },
    flush(done) {
      done(seen < size ? new PhotoChangedError(key, `${seen} bytes, ${size} recorded`) : null)
    },
  })
  // Either side failing or closing early ends both: the storage stream is never left open.
  return pipeline(source, guard, () => {})
}

/** In production without a bucket, the routes that need one answer 503; nothing is faked. */
export function requireStorage(storage: PhotoStorage | undefined): PhotoStorage {
  if (!storage) throw new AppError('storage_not_configured', 'photo storage is not configured')
  return storage
}

/** Keys this service writes and accepts: `sessions/<session id>/<photo id>.jpg`, nothing else. */
const PHOTO_KEY = /^sessions\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}\.jpg$/

export function isPhotoKey(key: string): boolean {
  return PHOTO_KEY.test(key)
}

/**
 * Copies made from a session's photos live under its prefix too, so that deleting the session
 * deletes them: `sessions/<session id>/copies/<photo id>.jpg` (the full-size photo guests get),
 * `…/<photo id>-<width>.webp` (display copies) and `…/preview.jpg` (the link preview).
 */
const COPY_KEY = /^sessions\/[A-Za-z0-9_-]{1,64}\/copies\/[A-Za-z0-9_-]{1,64}(-[0-9]{1,5})?\.(jpg|webp)$/

export function isCopyKey(key: string): boolean {
  return COPY_KEY.test(key)
}

/** The key of a copy: `name` is a photo id, `<photo id>-<width>` or `preview`; the type sets the extension. */
export function copyKey(sessionId: string, name: string, type: CopyType): string {
  return `${sessionPrefix(sessionId)}copies/${name}.${type === 'image/webp' ? 'webp' : 'jpg'}`
}

export type CopyType = 'image/jpeg' | 'image/webp'

/** What a stored key is served as: uploads and full-size copies are JPEG, display copies WebP. */
export function contentTypeOf(key: string): CopyType {
  return key.endsWith('.webp') ? 'image/webp' : PHOTO_CONTENT_TYPE
}

/** Copies never change once made (a new version would get a new key): caches keep them for a year. */
export const COPY_CACHE_CONTROL = 'public, max-age=31536000, immutable'

export function sessionPrefix(sessionId: string): string {
  return `sessions/${sessionId}/`
}

const SESSION_PREFIX = /^sessions\/[A-Za-z0-9_-]{1,64}\/$/

/** Only a session's own prefix may be deleted: nothing wider, however a caller got it wrong. */
export function requireSessionPrefix(prefix: string): string {
  if (!SESSION_PREFIX.test(prefix)) throw new Fault(`not a session prefix: ${prefix}`)
  return prefix
}
