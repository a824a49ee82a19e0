import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { Readable } from 'node:stream'

import { PHOTO_CONTENT_TYPE, type PhotoStorage, type UploadTarget } from './storage.js'

export type S3Settings = {
  bucket: string
  region: string
  /** For R2, MinIO and other S3-compatible services. */
  endpoint?: string
  forcePathStyle: boolean
  accessKeyId: string
  secretAccessKey: string
}

export function createS3Storage(settings: S3Settings): PhotoStorage {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
  })
  const Bucket = settings.bucket

  return {
    kind: 's3',

    async presignUpload(key, expiresInSeconds): Promise<UploadTarget> {
      const command = new PutObjectCommand({ Bucket, Key: key, ContentType: PHOTO_CONTENT_TYPE })
      // Binding Content-Type makes S3 refuse (403) an upload that is not declared a JPEG.
      const url = await getSignedUrl(client, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type']) })
      return {
        key,
        url,
        method: 'PUT',
        headers: { 'Content-Type': PHOTO_CONTENT_TYPE },
        expiresAt: Date.now() + expiresInSeconds * 1000,
      }
    },

    async head(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }))
        return { size: head.ContentLength ?? 0 }
      } catch (error) {
        if (isNotFound(error)) return undefined
        throw error
      }
    },

    async readRange(key, start, length) {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key, Range: `bytes=${start}-${start + length - 1}` }))
      return Buffer.from((await object.Body?.transformToByteArray()) ?? [])
    },

    async openStream(key) {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key }))
      return object.Body as Readable
    },

    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: PHOTO_CONTENT_TYPE }))
    },
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
}
