import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { Readable } from 'node:stream'

import type { StorageSettings } from '../../config.js'
import { Fault } from '../../errors.js'
import { StorageUnavailableError } from '../../outages.js'
import {
  contentTypeOf,
  COPY_CACHE_CONTROL,
  exactly,
  PHOTO_CONTENT_TYPE,
  PhotoChangedError,
  requireSessionPrefix,
  type PhotoStorage,
  type UploadTarget,
} from './storage.js'

export type S3Settings = Omit<Extract<StorageSettings, { kind: 's3' }>, 'kind'>

/**
 * Every call is bounded (docs/production.md): connecting and each wait for bytes by the
 * HTTP handler's timeouts, and the call as a whole (its retry included), until its answer's headers,
 * by a deadline of the same length; one retry at most (the SDK's default three would triple the wait of a stalled
 * bucket). A bucket that fails (5xx) or does not answer throws `StorageUnavailableError`, which a
 * request answers 503; its refusals (403, 404, 412) stay what they are.
 */
export function createS3Storage(settings: S3Settings & { now?: () => Date; onOutage?: () => void }): PhotoStorage {
  const now = settings.now ?? (() => new Date())
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    maxAttempts: 2,
    requestHandler: { connectionTimeout: settings.timeoutMs, requestTimeout: settings.timeoutMs },
  })
  const Bucket = settings.bucket

  /** One call, within the deadline; an outage becomes `StorageUnavailableError`. */
  const send: S3Client['send'] = (async (command: Parameters<S3Client['send']>[0]) => {
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${settings.timeoutMs} ms`)), settings.timeoutMs)
    try {
      return await client.send(command, { abortSignal: deadline.signal })
    } catch (error) {
      if (!isOutage(error)) throw error
      settings.onOutage?.()
      throw new StorageUnavailableError(error)
    } finally {
      clearTimeout(timer)
    }
  }) as S3Client['send']

  const head = async (key: string) => {
    try {
      const found = await send(new HeadObjectCommand({ Bucket, Key: key }))
      return { size: found.ContentLength ?? 0, etag: found.ETag ?? '' }
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
  }

  return {
    kind: 's3',

    async presignUpload(key, expiresInSeconds): Promise<UploadTarget> {
      const command = new PutObjectCommand({ Bucket, Key: key, ContentType: PHOTO_CONTENT_TYPE, IfNoneMatch: '*' })
      // Binding Content-Type makes S3 refuse (403) an upload that is not declared a JPEG; binding
      // If-None-Match: * makes it a conditional write that cannot replace a photo (412), so a URL
      // replayed after completion cannot change a published gallery.
      const url = await getSignedUrl(client, command, {
        expiresIn: expiresInSeconds,
        signableHeaders: new Set(['content-type', 'if-none-match']),
      })
      return {
        key,
        url,
        method: 'PUT',
        headers: { 'Content-Type': PHOTO_CONTENT_TYPE, 'If-None-Match': '*' },
        expiresAt: now().getTime() + expiresInSeconds * 1000,
      }
    },

    async deletePrefix(prefix) {
      const Prefix = requireSessionPrefix(prefix)
      // A page of at most 1,000 keys, one DeleteObjects each, until the listing comes back empty: the
      // uploads that were never completed have no row, so the bucket is asked, not the database.
      for (;;) {
        const listed = await send(new ListObjectsV2Command({ Bucket, Prefix }))
        const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []))
        if (keys.length === 0) return
        const result = await send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }))
        const failed = result.Errors ?? []
        if (failed.length > 0)
          throw new Fault(
            `storage refused to delete ${failed.length} objects under ${Prefix}: ${failed[0]?.Code ?? ''} ${failed[0]?.Message ?? ''}`,
          )
      }
    },

    async putCopy(key, bytes) {
      try {
        const put = await send(
          new PutObjectCommand({
            Bucket,
            Key: key,
            Body: bytes,
            ContentType: contentTypeOf(key),
            CacheControl: COPY_CACHE_CONTROL,
            IfNoneMatch: '*',
          }),
        )
        return { size: bytes.length, etag: put.ETag ?? '' }
      } catch (error) {
        // Another instance made the same copy first: what it stored stands.
        if (!(error instanceof S3ServiceException && error.$metadata.httpStatusCode === 412)) throw error
        const stored = await head(key)
        if (!stored) throw error
        return stored
      }
    },

    async check() {
      // The cheapest call that proves the bucket answers with these credentials.
      await send(new HeadBucketCommand({ Bucket }))
    },

    head,

    async readRange(key, start, length) {
      const object = await send(new GetObjectCommand({ Bucket, Key: key, Range: `bytes=${start}-${start + length - 1}` }))
      return Buffer.from((await object.Body?.transformToByteArray()) ?? [])
    },

    async openStream(key, expected) {
      try {
        // If-Match: S3 refuses (412) an object that is no longer the one completion recorded.
        const object = await send(new GetObjectCommand({ Bucket, Key: key, IfMatch: expected.etag || undefined }))
        if (object.ContentLength !== undefined && object.ContentLength !== expected.size) {
          ;(object.Body as Readable).destroy()
          throw new PhotoChangedError(key, `size ${object.ContentLength}, recorded ${expected.size}`)
        }
        return exactly(object.Body as Readable, expected.size, key)
      } catch (error) {
        if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 412)
          throw new PhotoChangedError(key, 'its ETag changed')
        throw error
      }
    },
  }
}

/** Not a refusal of the request (4xx) but a bucket that failed (5xx), or no answer at all. */
function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
  return status === undefined || status >= 500
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
}
