import type { AppContext } from '../../context.js'
import { newId } from '../../ids.js'
import { requireActiveSession } from '../sessions/session-state.js'
import { requireStorage, sessionPrefix, UPLOAD_URL_TTL_SECONDS, type UploadTarget } from '../storage/storage.js'

/** Fresh keys under the session's own prefix, each with a presigned PUT that binds image/jpeg. */
export async function createUploadTargets(
  deps: Pick<AppContext, 'em' | 'storage'>,
  { sessionId, count }: { sessionId: string; count: number },
): Promise<{ uploads: UploadTarget[] }> {
  await requireActiveSession(deps.em, sessionId)
  const storage = requireStorage(deps.storage)
  const keys = Array.from({ length: count }, () => `${sessionPrefix(sessionId)}${newId()}.jpg`)
  return { uploads: await Promise.all(keys.map((key) => storage.presignUpload(key, UPLOAD_URL_TTL_SECONDS))) }
}
