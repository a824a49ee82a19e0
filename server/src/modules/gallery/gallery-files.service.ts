import type { Readable } from 'node:stream'

import contentDisposition from 'content-disposition'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { ChunkPool, type Expected, type PhotoStorage, requireStorage } from '../storage/index.js'
import { ensureFullSize, fullSizeKey } from '../photos/index.js'
import { recordTracking } from '../tracking/index.js'
import { PHOTO_FILE_QUERIES, type PhotoFileRow } from './gallery.queries.js'
import { storedZipSize, streamStoredZip } from './stored-zip.js'
import { run } from '../../db/query.js'

/** The headers of a found file; its bytes are opened, and the download counted, only for a GET (not a HEAD). */
export type BytesAnswer = { headers: Record<string, string>; open: () => Promise<BytesBody> }

export type BytesBody = {
  body: Readable
  /** Called with each chunk of `body` once the socket has sent it, for buffers lent by a pool. */
  sent?: (chunk: Buffer) => void
}

/** Answered as the bare plain-text `Not Found` of the byte routes, as the API reference documents them. */
const notFound = () => new AppError('not_found', 'Not Found')

/**
 * `attachment` with the name per RFC 6266: the UTF-8 name in `filename*`, and for older clients an
 * ASCII `filename` (accents dropped, anything else non-ASCII as `_`).
 */
export function attachment(name: string): string {
  const ascii = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '_')
  return contentDisposition(name, { type: 'attachment', fallback: ascii })
}

/**
 * `<label> <n>.jpg`: n is the photo's 1-based place in gallery order, zero-padded to `of`'s digits
 * where given (a zip's entries then sort in gallery order: "01" before "10").
 */
export const photoFileName = (label: string, position: number, of = 0) =>
  `${label} ${String(position).padStart(String(of).length, '0')}.jpg`

/** Large reads: a zip moves a gigabyte, and every chunk costs the same whatever its size. */
const ZIP_READ_BYTES = 1024 * 1024

/** What a photo's answer sends: its stored object and what it must be. */
type PhotoFile = { key: string; expected: Expected }

/**
 * The full-size photo guests get: the copy without the upload's metadata, made now if the copies
 * worker has not reached it yet; a photo recorded before copies existed is sent as it was uploaded.
 * The bytes sent are those recorded, or none: the declared length is the recorded size.
 */
async function photoFile(deps: FileDeps, storage: PhotoStorage, photo: PhotoFileRow): Promise<PhotoFile> {
  if (photo.image_status === 'legacy')
    return { key: photo.storage_key, expected: { size: photo.size_bytes, etag: photo.etag ?? undefined } }
  const key = fullSizeKey(photo.session_id, photo.id)
  if (photo.full_size !== null && photo.full_etag !== null) return { key, expected: { size: photo.full_size, etag: photo.full_etag } }
  return { key, expected: await ensureFullSize({ em: deps.em, storage, imageLimit: deps.imageLimit }, photo) }
}

/** `signal`: the client went away; `onError`: a fault once the answer has started, to be logged. */
export type FileDeps = Pick<AppContext, 'em' | 'storage' | 'now' | 'imageLimit'> & {
  signal: AbortSignal
  onError: (error: unknown) => void
}

/** One photo of a live gallery, as an attachment; counted as a download. */
export async function downloadPhoto(deps: FileDeps, { sessionId, photoId }: { sessionId: string; photoId: string }): Promise<BytesAnswer> {
  const [photo] = await run(deps.em, PHOTO_FILE_QUERIES.one, [sessionId, photoId])
  if (!photo) throw notFound()
  const storage = requireStorage(deps.storage)
  const file = await photoFile(deps, storage, photo)
  return {
    headers: {
      'content-type': 'image/jpeg',
      'content-length': String(file.expected.size),
      'content-disposition': attachment(photoFileName(photo.label, photo.position)),
      'cache-control': 'private, no-store',
    },
    async open() {
      const stream = await storage.openStream(file.key, file.expected)
      try {
        await recordTracking(deps.em, { kind: 'download', eventId: photo.event_id, sessionId, at: deps.now() })
      } catch (error) {
        stream.destroy()
        throw error
      }
      // A photo that turns out shorter or longer than recorded ends the answer mid-way: say why.
      stream.once('error', deps.onError)
      if (deps.signal.aborted) stream.destroy()
      else deps.signal.addEventListener('abort', () => stream.destroy(), { once: true })
      return { body: stream }
    },
  }
}

/** Every photo of a live gallery in one stored zip, streamed; counted as a zip. */
export async function downloadZip(deps: FileDeps, { sessionId }: { sessionId: string }): Promise<BytesAnswer> {
  const photos = await run(deps.em, PHOTO_FILE_QUERIES.all, [sessionId])
  const first = photos[0]
  if (!first) throw notFound()
  const storage = requireStorage(deps.storage)
  const pool = new ChunkPool(ZIP_READ_BYTES)
  const files = await Promise.all(photos.map((photo) => photoFile(deps, storage, photo)))
  // Dated when the session was completed: the photos' own day, not the zip format's 1980.
  // (A session recorded completed without its time, as old rows may be: the epoch, as before the rows were checked.)
  const date = new Date(first.completed_at ?? 0)
  const entries = photos.map((photo, index) => ({
    name: photoFileName(photo.label, photo.position, photos.length),
    size: files[index]!.expected.size,
    date,
    open: () => storage.openStream(files[index]!.key, files[index]!.expected, { chunkBytes: ZIP_READ_BYTES, pool }),
  }))
  const size = storedZipSize(entries)
  return {
    headers: {
      'content-type': 'application/zip',
      ...(size === undefined ? {} : { 'content-length': String(size) }),
      'content-disposition': attachment(`${first.label}.zip`),
      'cache-control': 'private, no-store',
    },
    async open() {
      await recordTracking(deps.em, { kind: 'zip', eventId: first.event_id, sessionId, at: deps.now() })
      return { body: streamStoredZip(entries, deps.signal, deps.onError), sent: (chunk) => pool.give(chunk) }
    },
  }
}
