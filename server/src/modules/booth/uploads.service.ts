import type { EntityManager } from '@mikro-orm/postgresql'

import type { AppContext } from '../../context.js'
import type { BoothCaller } from '../booth-keys/index.js'
import { newId } from '../../ids.js'
import { requireActiveSession } from '../sessions/index.js'
import { requireStorage, sessionPrefix, UPLOAD_URL_TTL_SECONDS, type UploadTarget } from '../storage/index.js'
import { UploadGrant } from '../../db/entities/upload-grant.entity.js'
import { UPLOAD_GRANT_QUERIES } from './upload-grants.queries.js'
import { run } from '../../db/query.js'

/** Fresh keys under the session's own prefix, each with a presigned PUT that binds image/jpeg. */
export async function createUploadTargets(
  deps: Pick<AppContext, 'em' | 'storage' | 'now'> & { booth: BoothCaller },
  { sessionId, count }: { sessionId: string; count: number },
): Promise<{ uploads: UploadTarget[] }> {
  await requireActiveSession(deps.em, sessionId)
  const storage = requireStorage(deps.storage)
  const keys = Array.from({ length: count }, () => `${sessionPrefix(sessionId)}${newId()}.jpg`)
  const uploads = await Promise.all(keys.map((key) => storage.presignUpload(key, UPLOAD_URL_TTL_SECONDS)))
  // Recorded before the URLs are handed out: a revocation then reaches every one of them.
  await deps.em.insertMany(
    UploadGrant,
    keys.map((storageKey) => ({ storageKey, session: sessionId, boothKeyId: deps.booth.keyId, createdAt: deps.now() })),
  )
  return { uploads }
}

/**
 * Which of these uploads were granted to a booth key that has since been revoked: the local bucket
 * refuses their PUT, and completion takes none of them (as not stored). S3 itself cannot be asked at
 * PUT time, so there completion is the gate.
 */
export async function revokedUploads(em: EntityManager, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return []
  const rows = await run(em, UPLOAD_GRANT_QUERIES.revoked, [[...keys]])
  return rows.map((row) => row.storageKey)
}
