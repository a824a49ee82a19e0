import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Stats } from 'node:fs'
import { link, mkdir, open, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'

import { Fault } from '../../errors.js'
import { PooledFileStream } from './chunk-pool.js'
import {
  exactly,
  isCopyKey,
  isPhotoKey,
  PHOTO_CONTENT_TYPE,
  PhotoChangedError,
  requireSessionPrefix,
  UPLOAD_URL_TTL_SECONDS,
  type PhotoStorage,
  type UploadTarget,
} from './storage.js'

export type LocalStorage = PhotoStorage & {
  readonly kind: 'local'
  /** The file of a key, or undefined for anything that is not a photo key (no path escapes the root). */
  pathOf(key: string): string | undefined
  /**
   * Stores an upload's body, refusing it past `maxBytes` and when the key already holds a photo
   * (`ObjectExistsError`); nothing is left behind on failure.
   */
  receive(key: string, body: Readable, maxBytes: number): Promise<void>
  /** Removes the partial uploads a crash left behind, untouched for `idleMs`. */
  sweepPartialUploads(idleMs: number): Promise<number>
  /** Checks a presigned upload as S3 would: the signature covers key, content type and expiry. */
  checkUpload(key: string, query: { expires?: unknown; signature?: unknown }, contentType: string | undefined, at: Date): UploadCheck
}

/** `expired`: the signature is this service's and only the time has passed (the URL was good). */
export type UploadCheck = { ok: true } | { ok: false; code: 'AccessDenied' | 'SignatureDoesNotMatch'; message: string; expired?: true }

/** The local bucket's ETag: a file replaced in any way (a new inode, size or time) gets another. */
const etagOf = (stats: Stats) => `"${stats.ino.toString(16)}-${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`

const etagAndSize = (stats: Stats) => ({ size: stats.size, etag: etagOf(stats) })

/** A partial upload is written beside its photo under this prefix, then linked into place. */
const PARTIAL_PREFIX = '.upload-'

/** Allowance for clocks: an expiry further ahead than a URL can live was not signed by this service's rules. */
const MAX_EXPIRY_MS = (UPLOAD_URL_TTL_SECONDS + 60) * 1000

/** The development bucket: a folder on disk, written through this server's signed `PUT /photos/<key>`. */
export function createLocalStorage(options: { root: string; publicUrl: string; secret: string; now?: () => Date }): LocalStorage {
  const now = options.now ?? (() => new Date())
  const root = resolve(options.root)
  const sign = (key: string, contentType: string, expires: number) =>
    createHmac('sha256', options.secret).update(`PUT\n${key}\n${contentType}\n${expires}`).digest('base64url')

  const pathOf = (key: string) => {
    if (!isPhotoKey(key) && !isCopyKey(key)) return undefined
    const path = resolve(root, key)
    return path.startsWith(root + sep) ? path : undefined
  }
  const requirePath = (key: string) => {
    const path = pathOf(key)
    if (!path) throw new Fault(`not a photo key: ${key}`)
    return path
  }

  return {
    kind: 'local',
    pathOf,

    async presignUpload(key, expiresInSeconds): Promise<UploadTarget> {
      requirePath(key)
      const expires = Math.floor(now().getTime() / 1000) + expiresInSeconds
      const query = new URLSearchParams({ expires: String(expires), signature: sign(key, PHOTO_CONTENT_TYPE, expires) })
      return {
        key,
        url: `${options.publicUrl}/photos/${key}?${query.toString()}`,
        method: 'PUT',
        // As on S3: the bucket refuses to replace a photo whatever is sent; the header says so to the booth.
        headers: { 'Content-Type': PHOTO_CONTENT_TYPE, 'If-None-Match': '*' },
        expiresAt: expires * 1000,
      }
    },

    checkUpload(key, query, contentType, at): UploadCheck {
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
          message:
            'The request signature we calculated does not match the signature you provided. Check the key and the Content-Type header.',
        }
      }
      if (expires * 1000 < at.getTime()) return { ok: false, code: 'AccessDenied', message: 'Request has expired', expired: true }
      if (expires * 1000 - at.getTime() > MAX_EXPIRY_MS) {
        return { ok: false, code: 'AccessDenied', message: `Presigned URLs last at most ${UPLOAD_URL_TTL_SECONDS} seconds` }
      }
      return { ok: true }
    },

    async deletePrefix(prefix) {
      // The folder of the session's photos, partial uploads and all.
      await rm(join(root, requireSessionPrefix(prefix)), { recursive: true, force: true })
    },

    async check() {
      // The bucket's folder is there, or can be: the disk answers.
      await mkdir(root, { recursive: true })
    },

    async head(key) {
      const stats = await stat(requirePath(key)).catch(() => undefined)
      return stats?.isFile() ? etagAndSize(stats) : undefined
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
    async openStream(key, expected, options): Promise<Readable> {
      // Opened first, so that a missing or changed file fails here and not as a stream error after headers.
      const file = await open(requirePath(key), 'r')
      const stats = await file.stat().catch(async (error: unknown) => {
        await file.close()
        throw error
      })
      if (stats.size !== expected.size || (expected.etag !== undefined && etagOf(stats) !== expected.etag)) {
        await file.close()
        throw new PhotoChangedError(key, `size ${stats.size} and ETag ${etagOf(stats)}, recorded ${expected.size} and ${expected.etag}`)
      }
      const stream = options?.pool
        ? new PooledFileStream(file, options.pool)
        : file.createReadStream(options?.chunkBytes ? { highWaterMark: options.chunkBytes } : {})
      return exactly(stream, expected.size, key)
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
      await writeOnce(requirePath(key), limited())
    },
    async putCopy(key, bytes) {
      const path = requirePath(key)
      await writeOnce(path, bytes).catch((error: unknown) => {
        if (!(error instanceof ObjectExistsError)) throw error
      })
      return etagAndSize(await stat(path))
    },
    async sweepPartialUploads(idleMs) {
      const sessions = join(root, 'sessions')
      const folders = await readdir(sessions).catch(() => [] as string[])
      let removed = 0
      // Uploads are written in a session's folder, copies in its `copies` folder.
      for (const folder of folders.flatMap((session) => [join(sessions, session), join(sessions, session, 'copies')])) {
        const names = await readdir(folder).catch(() => [] as string[])
        for (const name of names.filter((n) => n.startsWith(PARTIAL_PREFIX))) {
          const path = join(folder, name)
          const stats = await stat(path).catch(() => undefined)
          if (
            stats &&
            now().getTime() - stats.mtimeMs > idleMs &&
            (await unlink(path).then(
              () => true,
              () => false,
            ))
          )
            removed++
        }
      }
      return removed
    },
  }
}

export class EntityTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`Your proposed upload exceeds the maximum allowed size of ${maxBytes} bytes`)
  }
}

/** The key already holds a photo: S3 answers a conditional write (If-None-Match: *) so. */
export class ObjectExistsError extends Error {
  constructor() {
    super('At least one of the pre-conditions you specified did not hold')
  }
}

/**
 * A reader never sees half a photo, and a photo is never replaced: the body is written beside it,
 * then linked into place, which fails if the name is taken (two uploads racing for one key included).
 */
async function writeOnce(path: string, body: AsyncIterable<Uint8Array> | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const partial = join(dirname(path), `${PARTIAL_PREFIX}${randomBytes(8).toString('hex')}`)
  try {
    await writeFile(partial, body)
    await link(partial, path).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EEXIST' ? new ObjectExistsError() : error
    })
  } finally {
    await unlink(partial).catch(() => {})
  }
}
