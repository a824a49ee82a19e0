import { galleryLink } from '@photobooth/sdk'
import pLimit from 'p-limit'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { newId } from '../../ids.js'
import { enqueueGalleryLinks } from '../messages/index.js'
import { photoUrl } from '../gallery/index.js'
import { fullSizeKey, notifyCopiesWorkers } from '../photos/index.js'
import { Photo } from '../../db/entities/photo.entity.js'
import { leaveActiveState, requireActiveSession } from '../sessions/index.js'
import { revokedUploads } from './uploads.service.js'
import { isPhotoKey, type PhotoStorage, readJpegSize, requireStorage, sessionPrefix } from '../storage/index.js'

/** Storage requests in flight at once per completion: quick for 60 photos, gentle on the bucket. */
const STORAGE_CONCURRENCY = 8

type CheckedPhoto = { key: string; width: number; height: number; size: number; etag: string }

/**
 * Completes an active session with its photos in gallery order. Everything is checked before
 * anything is written: the keys (this session's, no repeats), then storage (every key present,
 * every object a JPEG, its size read from its own header). Then one transaction records the
 * photos (queued for their copies), moves the session to completed, and queues the gallery link for
 * every guest, held until the copies are made (or COPIES_LINK_WAIT_MS). The booth never waits for
 * image work.
 */
export async function completeSession(
  deps: Pick<AppContext, 'em' | 'storage' | 'config' | 'now' | 'wakeDelivery' | 'wakeCopies'>,
  { sessionId, keys }: { sessionId: string; keys: readonly string[] },
) {
  await requireActiveSession(deps.em, sessionId)
  checkKeys(sessionId, keys)
  // Uploaded through the URLs of a key revoked since: not taken, as if never stored.
  const revoked = await revokedUploads(deps.em, keys)
  if (revoked.length > 0) throw new AppError('photo_keys_missing', 'Photo keys not in storage', { missing: revoked })
  const photos = await checkStoredPhotos(requireStorage(deps.storage), keys)
  const galleryUrl = galleryLink(deps.config.galleryUrl, sessionId)
  const now = deps.now()

  const recorded = await deps.em.transactional(async (tx) => {
    await leaveActiveState(tx, sessionId, { status: 'completed', photoCount: photos.length }, now)
    const rows = photos.map((photo) => ({ id: newId(), ...photo }))
    if (rows.length > 0) {
      await tx.insertMany(
        Photo,
        rows.map((row, index) => ({
          id: row.id,
          session: sessionId,
          position: index + 1,
          storageKey: row.key,
          width: row.width,
          height: row.height,
          sizeBytes: row.size,
          etag: row.etag,
          createdAt: now,
        })),
      )
      // A session without photos has no live gallery: a link would only lead guests to a 404.
      await enqueueGalleryLinks(tx, sessionId, galleryUrl, deps.config.copies.linkWaitMs)
      await notifyCopiesWorkers(tx)
    }
    return rows
  })
  if (recorded.length > 0) {
    deps.wakeCopies()
    deps.wakeDelivery()
  }

  return {
    id: sessionId,
    status: 'completed' as const,
    galleryUrl,
    photos: recorded.map((row) => ({
      id: row.id,
      url: photoUrl(deps.config.cdnUrl, fullSizeKey(sessionId, row.id)),
      width: row.width,
      height: row.height,
    })),
  }
}

function checkKeys(sessionId: string, keys: readonly string[]): void {
  const prefix = sessionPrefix(sessionId)
  const foreign = keys.filter((key) => !key.startsWith(prefix) || !isPhotoKey(key))
  if (foreign.length > 0) throw new AppError('photo_keys_foreign', `Photo keys outside this session: ${foreign.join(', ')}`)
  const repeated = [...new Set(keys.filter((key, index) => keys.indexOf(key) !== index))]
  if (repeated.length > 0) throw new AppError('photo_keys_repeated', `Photo keys given more than once: ${repeated.join(', ')}`)
}

async function checkStoredPhotos(storage: PhotoStorage, keys: readonly string[]): Promise<CheckedPhoto[]> {
  const limit = pLimit(STORAGE_CONCURRENCY)
  const heads = await Promise.all(keys.map((key) => limit(() => storage.head(key))))
  const missing = keys.filter((_, index) => heads[index] === undefined)
  if (missing.length > 0) throw new AppError('photo_keys_missing', 'Photo keys not in storage', { missing })

  const sizes = await Promise.all(keys.map((key) => limit(() => readJpegSize((offset, length) => storage.readRange(key, offset, length)))))
  const notJpeg = keys.filter((_, index) => sizes[index] === undefined)
  if (notJpeg.length > 0) throw new AppError('photos_not_jpeg', 'Uploads that are not JPEG images', { notJpeg })
  return keys.map((key, index) => ({ key, ...sizes[index]!, size: heads[index]!.size, etag: heads[index]!.etag }))
}
