import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdir, open, rename, stat, unlink, writeFile } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'

import { PooledFileStream } from './chunk-pool.js'
import { isPhotoKey, PHOTO_CONTENT_TYPE, type PhotoStorage, type UploadTarget } from './storage.js'

export type LocalStorage = PhotoStorage & {
  readonly kind: 'local'
  /** The file of a key, or undefined for anything that is not a photo key (no path escapes the root). */
  pathOf(key: string): string | undefined
  /** Stores an upload's body, refusing it past `maxBytes`; nothing is left behind on failure. */
  receive(key: string, body: Readable, maxBytes: number): Promise<void>
  /** Checks a presigned upload as S3 would: the signature covers key, content type and expiry. */
  checkUpload(key: string, query: { expires?: unknown; signature?: unknown }, contentType: string | undefined, now: Date): UploadCheck
}

export type UploadCheck = { ok: true } | { ok: false; code: 'AccessDenied' | 'SignatureDoesNotMatch'; message: string }

/** The development bucket: a folder on disk, written through this server's signed `PUT /photos/<key>`. */
export function createLocalStorage(options: { root: string; publicUrl: string; secret: string }): LocalStorage {
  const root = resolve(options.root)
  const sign = (key: string, contentType: string, expires: number) =>
    createHmac('sha256', options.secret).update(`PUT\n${key}\n${contentType}\n${expires}`).digest('base64url')

  const pathOf = (key: string) => {
    if (!isPhotoKey(key)) return undefined
    const path = resolve(root, key)
    return path.startsWith(root + sep) ? path : undefined
  }
  const requirePath = (key: string) => {
    const path = pathOf(key)
    if (!path) throw new Error(`not a photo key: ${key}`)
    return path
  }

  return {
    kind: 'local',
    pathOf,

    async presignUpload(key, expiresInSeconds): Promise<UploadTarget> {
      requirePath(key)
      const expires = Math.floor(Date.now() / 1000) + expiresInSeconds
      const query = new URLSearchParams({ expires: String(expires), signature: sign(key, PHOTO_CONTENT_TYPE, expires) })
      return {
        key,
        url: `${options.publicUrl}/photos/${key}?${query}`,
        method: 'PUT',
        headers: { 'Content-Type': PHOTO_CONTENT_TYPE },
        expiresAt: expires * 1000,
      }
    },

    checkUpload(key, query, contentType, now): UploadCheck {
      const expires = Number(query.expires)
      if (typeof query.signature !== 'string' || !Number.isInteger(expires)) {
        return { ok: false, code: 'AccessDenied', message: 'Query-string authentication requires the expires and signature parameters' }
      }
      const expected = Buffer.from(sign(key, contentType ?? '', expires))
      const given = Buffer.from(query.signature)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return {
          ok: false,
          code: 'SignatureDoesNotMatch',
          message: 'The request signature we calculated does not match the signature you provided. Check the key and the Content-Type header.',
        }
      }
      if (expires * 1000 < now.getTime()) return { ok: false, code: 'AccessDenied', message: 'Request has expired' }
      return { ok: true }
    },

    async head(key) {
      const stats = await stat(requirePath(key)).catch(() => undefined)
      return stats?.isFile() ? { size: stats.size } : undefined
    },

    async readRange(key, start, length) {
      const file = await open(requirePath(key), 'r')
      try {
        const buffer = Buffer.alloc(length)
        const { bytesRead } = await file.read(buffer, 0, length, start)
        return buffer.subarray(0, bytesRead)
      } finally {
        await file.close()
      }
    },

    async openStream(key, options): Promise<Readable> {
      if (options?.pool) return PooledFileStream.open(requirePath(key), options.pool)
      const stream = createReadStream(requirePath(key), options?.chunkBytes ? { highWaterMark: options.chunkBytes } : {})
      // Surface a missing file here, not as a stream error after headers are sent.
      await new Promise<void>((resolveOpen, reject) => stream.once('open', () => resolveOpen()).once('error', reject))
      return stream
    },

    async put(key, body) {
      await writeAtomically(requirePath(key), body)
    },

    async receive(key, body, maxBytes) {
      let received = 0
      const limited = async function* () {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          received += chunk.length
          if (received > maxBytes) throw new EntityTooLargeError(maxBytes)
          yield chunk
        }
      }
      await writeAtomically(requirePath(key), limited())
    },
  }
}

export class EntityTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`Your proposed upload exceeds the maximum allowed size of ${maxBytes} bytes`)
  }
}

/** A reader never sees half a photo: write beside it, then rename over it. */
export async function writeAtomically(path: string, body: Buffer | AsyncIterable<Uint8Array>): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temporary = join(dirname(path), `.upload-${randomBytes(8).toString('hex')}`)
  try {
    await writeFile(temporary, body)
    await rename(temporary, path)
  } catch (error) {
    await unlink(temporary).catch(() => {})
    throw error
  }
}
