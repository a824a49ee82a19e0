import { Router } from 'express'

import type { Services } from '../../context.js'
import { sendPlain, sendS3Error } from '../../http/answers.js'
import { revokedUploads } from '../booth/index.js'
import { Session } from '../../db/entities/session.entity.js'
import { contentTypeOf, EntityTooLargeError, isPhotoKey, type LocalStorage, ObjectExistsError } from '../storage/index.js'
import { PHOTO_BYTES_QUERIES, type UploadState } from './photo-bytes.queries.js'
import { PHOTO_FILE_QUERIES } from '../gallery/index.js'
import { ensureFullSize, fullSizeKey } from '../photos/index.js'
import { run } from '../../db/query.js'

/** Uploads above this are refused, as a bucket policy would. Booth JPEGs are a few megabytes. */
export const MAX_PHOTO_BYTES = 25 * 1024 * 1024

/**
 * `GET /photos/<key>` and the presigned `PUT /photos/<key>` of the local bucket. Only a development
 * instance on the local bucket serves them; a deployed one answers 404 (photos live on the CDN).
 */
export function photoBytesRoutes({
  config,
  storage,
  orm,
  now,
  imageLimit,
  logger,
}: Pick<Services, 'config' | 'storage' | 'orm' | 'now' | 'imageLimit' | 'logger'>): Router {
  const router = Router()
  const local = config.mode === 'development' && storage?.kind === 'local' ? (storage as LocalStorage) : undefined
  const keyOf = (segments: unknown) => (Array.isArray(segments) ? segments.join('/') : '')

  router.get('/*key', async (req, res, next) => {
    const key = keyOf(req.params.key)
    const path = local?.pathOf(key)
    if (!path) return sendPlain(res, 404)
    try {
      const upload = isPhotoKey(key) ? await uploadState(key) : undefined
      if (isPhotoKey(key) && !upload) return sendPlain(res, 404)
      // Photos are shown by gallery pages on other origins, as they would be from the CDN.
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin')
      // An upload readable only while its session is active is kept by no cache.
      if (upload === 'active') res.setHeader('Cache-Control', 'no-store')
      const caching = upload === 'active' ? { cacheControl: false } : { maxAge: '1y', immutable: true }
      // `pathOf` confines the path to the bucket; the bucket itself may sit in a dot-folder (`.data`).
      const options = { headers: { 'Content-Type': contentTypeOf(key) }, ...caching, dotfiles: 'allow' as const }
      const send = () =>
        new Promise<boolean>((resolve, reject) =>
          res.sendFile(path, options, (error) => {
            if (!error) return resolve(true)
            if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !res.headersSent) resolve(false)
            else reject(error)
          }),
        )
      if (await send()) return
      // A gallery's photo URL asked for before the copies worker reached it: its full-size copy is
      // made now, as a download would make it (never the upload itself, metadata and all).
      if (await makeFullSizeNow(key)) if (await send()) return
      sendPlain(res, 404)
    } catch (error) {
      next(error)
    }
  })

  /**
   * An upload holds the camera's metadata (GPS, the camera's serial): guests get copies made without
   * it, and on S3 the bucket's policy keeps uploads private. So here too an upload is read only as
   * a legacy gallery's photo, or by its booth while the session is active and the key it was granted
   * to is not revoked: never once the session is completed or cancelled.
   */
  const uploadState = async (key: string): Promise<UploadState | undefined> => {
    const rows = await run(orm.em.fork(), PHOTO_BYTES_QUERIES.uploadState, [key, key, key.split('/')[1]])
    return rows[0]?.state ?? undefined
  }

  const makeFullSizeNow = async (key: string): Promise<boolean> => {
    const [, sessionId, copies, name] = key.split('/')
    if (!local || copies !== 'copies' || !sessionId || !name?.endsWith('.jpg')) return false
    const photoId = name.slice(0, -'.jpg'.length)
    if (key !== fullSizeKey(sessionId, photoId)) return false
    const em = orm.em.fork()
    const [photo] = await run(em, PHOTO_FILE_QUERIES.one, [sessionId, photoId])
    if (!photo || photo.image_status === 'legacy') return false
    await ensureFullSize({ em, storage: local, imageLimit }, photo)
    return true
  }

  router.put('/*key', async (req, res, next) => {
    const key = keyOf(req.params.key)
    if (!local || !local.pathOf(key)) return sendPlain(res, 404)
    const check = local.checkUpload(key, req.query, req.headers['content-type'], now())
    // A booth retrying after a crash may hold a URL that has expired since its photo was stored:
    // saying the photo is there (412) lets it complete with that key, where a 403 would have it
    // upload the photo again under a new key and leave this one an orphan.
    if (!check.ok && check.expired && (await local.head(key).catch(() => undefined))) {
      return sendS3Error(res, 412, 'PreconditionFailed', new ObjectExistsError().message)
    }
    if (!check.ok) return sendS3Error(res, 403, check.code, check.message)
    if (Number(req.headers['content-length']) > MAX_PHOTO_BYTES) {
      res.setHeader('Connection', 'close')
      return sendS3Error(res, 400, 'EntityTooLarge', new EntityTooLargeError(MAX_PHOTO_BYTES).message)
    }
    try {
      // A gallery's photos are immutable: no upload once its session was completed or cancelled,
      // and none over a photo already stored (a URL replayed within its 15 minutes).
      const session = await orm.em.fork().findOne(Session, key.split('/')[1]!, { fields: ['status'] })
      if (session?.status !== 'active') {
        return sendS3Error(res, 403, 'AccessDenied', 'The session of this upload is no longer active')
      }
      if (await local.head(key)) {
        return sendS3Error(res, 412, 'PreconditionFailed', new ObjectExistsError().message)
      }
      if ((await revokedUploads(orm.em.fork(), [key])).length > 0) {
        return sendS3Error(res, 403, 'AccessDenied', 'The booth key that asked for this upload has been revoked')
      }
      await local.receive(key, req, MAX_PHOTO_BYTES)
      res.status(200).end()
    } catch (error) {
      const refused = error instanceof EntityTooLargeError || error instanceof ObjectExistsError
      // A booth that gave up (closed, or its network went) mid-upload: no fault of ours nor an outage
      // (Node's "aborted" carries ECONNRESET, which would read as a lost database connection). Its
      // request's line says 499 and aborted; `receive` has removed the partial file.
      if (!refused && !req.complete && req.destroyed)
        return logger.info('upload aborted by the client before its last byte: nothing stored')
      if (!refused) return next(error)
      res.setHeader('Connection', 'close')
      if (error instanceof ObjectExistsError) sendS3Error(res, 412, 'PreconditionFailed', error.message)
      else sendS3Error(res, 400, 'EntityTooLarge', error.message)
    }
  })

  return router
}
