import type { EntityManager } from '@mikro-orm/postgresql'
import type { LimitFunction } from 'p-limit'

import { notify } from '../../db/notifications.js'
import { notifyDispatchers } from '../messages/index.js'
import { copyKey, PhotoChangedError, sessionPrefix, type PhotoStorage, type StoredObject } from '../storage/index.js'
import { stripJpegMetadata } from './jpeg-metadata.js'
import { makeDisplayCopies, makeFullSize } from './photo-copies.js'
import { COPIES_QUERIES, type ClaimedPhoto } from './photo-copies.queries.js'
import type { DisplayCopy } from '../../db/entities/photo.entity.js'
import { run } from '../../db/query.js'

/** The channel on which completions announce photos to copy, to the workers of every instance. */
export const COPIES_CHANNEL = 'photo_copies'

/** Tells the copies workers of every instance that photos are queued; inside a transaction, at its commit. */
export async function notifyCopiesWorkers(tx: EntityManager): Promise<void> {
  await notify(tx, COPIES_CHANNEL)
}

/** What making copies needs: storage, and this instance's bound on image work in flight (shared by the worker and downloads). */
export type CopiesDeps = { storage: PhotoStorage; imageLimit: LimitFunction }

/** The full-size copy's key: what guests' photo URLs, downloads and zips are made of. */
export const fullSizeKey = (sessionId: string, photoId: string) => copyKey(sessionId, photoId, 'image/jpeg')
export const displayCopyKey = (sessionId: string, photoId: string, width: number) => copyKey(sessionId, `${photoId}-${width}`, 'image/webp')
export const previewKey = (sessionId: string) => copyKey(sessionId, 'preview', 'image/jpeg')

/** A photo as the makers need it. */
type Source = Pick<ClaimedPhoto, 'id' | 'session_id' | 'storage_key' | 'size_bytes' | 'etag' | 'width' | 'height'>

/** An upload that is gone from storage, or no longer the one completion recorded: no attempt can make its copies. */
export class UploadGoneError extends Error {}

/** The upload's bytes, all of them (at most MAX_PHOTO_BYTES), as completion recorded them. */
async function readOriginal(storage: PhotoStorage, photo: Source): Promise<Buffer> {
  try {
    const stream = await storage.openStream(photo.storage_key, { size: photo.size_bytes, etag: photo.etag ?? undefined })
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  } catch (error) {
    if (error instanceof PhotoChangedError) throw new UploadGoneError('The upload in storage is no longer the one completion recorded.')
    // Storage failing is tried again; an upload storage says it does not have is not coming back.
    if ((await storage.head(photo.storage_key).catch(() => null)) === undefined)
      throw new UploadGoneError('The upload is no longer in storage.')
    throw error
  }
}

/** What one photo's copies came to, for `settleCopies`. */
export type MadeCopies = {
  status: 'ready' | 'failed'
  error: string | null
  /** Absent when it could not be made (the attempts ran out before it was stored). */
  full: StoredObject | null
  width: number
  height: number
  copies: DisplayCopy[] | null
  preview: boolean
}

/**
 * Makes and stores a photo's copies: the full-size photo (unless a download made it already), the
 * display copies, and the session's link preview from its first photo. An upload that cannot be
 * decoded is `failed`, with sharp's reason, and still gets its full-size copy (stripped); one that
 * ends early gets its copies (grey where the data stops) and is `failed` for staff to see; one whose
 * upload is gone is `failed` without copies. Storage failing throws: the attempt is tried again.
 */
export async function makeCopies({ storage, imageLimit }: CopiesDeps, photo: ClaimedPhoto): Promise<MadeCopies> {
  return imageLimit(async () => {
    let original: Buffer
    try {
      original = await readOriginal(storage, photo)
    } catch (error) {
      if (!(error instanceof UploadGoneError)) throw error
      return { status: 'failed', error: error.message, full: null, width: photo.width, height: photo.height, copies: null, preview: false }
    }
    let full: StoredObject
    let size = { width: photo.width, height: photo.height }
    let complete: boolean
    if (photo.full_size !== null && photo.full_etag !== null) {
      full = { size: photo.full_size, etag: photo.full_etag }
      complete = stripJpegMetadata(original).complete
    } else {
      const made = await makeFullSize(original, size)
      size = { width: made.width, height: made.height }
      complete = made.complete
      full = await storage.putCopy(fullSizeKey(photo.session_id, photo.id), made.bytes)
    }
    let display
    try {
      display = await makeDisplayCopies(original, { preview: photo.position === 1 })
    } catch (error) {
      return { status: 'failed', error: describeImageError(error), full, ...size, copies: null, preview: false }
    }
    for (const copy of display.copies) await storage.putCopy(displayCopyKey(photo.session_id, photo.id, copy.width), copy.bytes)
    if (display.preview) await storage.putCopy(previewKey(photo.session_id), display.preview)
    const copies = display.copies.map(({ width, height }) => ({ width, height }))
    // Shown as far as it goes, and told to staff: a camera's card or the booth's upload lost the rest.
    const error = complete ? null : INCOMPLETE
    return { status: complete ? 'ready' : 'failed', error, full, ...size, copies, preview: display.preview !== undefined }
  })
}

const INCOMPLETE = 'The upload ends before the photo does (cut short, or not a JPEG inside): what it holds is shown, the rest is grey.'

/** sharp's reason, in staff's words where we know them. */
function describeImageError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  if (/pixel limit/i.test(message))
    return 'The photo has more pixels than the service decodes (64 megapixels): no display copies were made.'
  return `The photo could not be decoded: ${message.slice(0, 300)}`
}

/**
 * Records a photo's copies and, when it was the session's last photo waiting, releases the
 * session's gallery links (held at completion for the copies) and wakes the dispatchers. A photo
 * whose session was deleted meanwhile has no row: its copies are removed again. Answers whether
 * links were released.
 */
export async function settleCopies(
  em: EntityManager,
  storage: PhotoStorage,
  photo: ClaimedPhoto,
  made: MadeCopies,
): Promise<{ released: boolean }> {
  const settled = await em.transactional(async (tx) => {
    const [session] = await run(tx, COPIES_QUERIES.lockSession, [photo.session_id])
    if (!session) return undefined
    const rows = await run(tx, COPIES_QUERIES.settlePhoto, [
      made.status,
      made.error,
      made.full?.size ?? null,
      made.full?.etag ?? null,
      made.width,
      made.height,
      made.copies && JSON.stringify(made.copies),
      made.preview,
      photo.id,
    ])
    if (rows.length === 0) return { released: false }
    const [state] = await run(tx, COPIES_QUERIES.settleSession, [photo.session_id, photo.session_id])
    if (!state?.becameReady) return { released: false }
    const released = await run(tx, COPIES_QUERIES.releaseLinks, [photo.session_id])
    if (released.length > 0) await notifyDispatchers(tx)
    return { released: released.length > 0 }
  })
  if (settled) return settled
  // Deleted while its copies were made: the deletion's own cleanup may have run before they were stored.
  await storage.deletePrefix(sessionPrefix(photo.session_id))
  return { released: false }
}

/**
 * The full-size copy of a photo the worker has not reached yet, made now for a download or a zip
 * (or the local bucket's photo URL): what guests get is never the upload as it came, metadata and
 * all. Idempotent with the worker: copies are stored only if absent, and the first record stands.
 */
export async function ensureFullSize(deps: CopiesDeps & { em: EntityManager }, photo: Source): Promise<StoredObject> {
  const full = await deps.imageLimit(async () => {
    const made = await makeFullSize(await readOriginal(deps.storage, photo), { width: photo.width, height: photo.height })
    return deps.storage.putCopy(fullSizeKey(photo.session_id, photo.id), made.bytes)
  })
  const [recorded] = await run(deps.em, COPIES_QUERIES.recordFullSize, [full.size, full.etag, photo.id])
  return recorded ? { size: recorded.full_size, etag: recorded.full_etag } : full
}
