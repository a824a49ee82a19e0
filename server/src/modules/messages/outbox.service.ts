import type { EntityManager } from '@mikro-orm/postgresql'
// The link a guest is sent, built as the SDK builds it: `GALLERY_URL/<session id>`.
import { galleryLink } from '@photobooth/sdk'

import type { AppContext } from '../../context.js'
import { notify } from '../../db/notifications.js'
import { AppError } from '../../errors.js'
import { newId } from '../../ids.js'
import { LIVE, NO_SUCH_SESSION } from '../sessions/index.js'
import { Session } from '../../db/entities/session.entity.js'
import { OUTBOX_QUERIES } from './outbox.queries.js'
import { run } from '../../db/query.js'

/** The channel on which queued messages are announced, to the dispatchers of every instance. */
export const OUTBOX_CHANNEL = 'outbox_message'

/** Tells the dispatchers of every instance that messages are due; inside a transaction, at its commit. */
export async function notifyDispatchers(tx: EntityManager): Promise<void> {
  await notify(tx, OUTBOX_CHANNEL)
}

/**
 * Runs one of the outbox's inserts for a session's guests and announces what it queued: the messages
 * to send, and those recorded `suppressed` (their address is on the suppression list).
 */
async function queueLinks(
  tx: EntityManager,
  query: typeof OUTBOX_QUERIES.enqueue,
  sessionId: string,
  link: string,
  holdMs = 0,
): Promise<{ queued: number; suppressed: number }> {
  const rows = await run(tx, query, [newId(), link, holdMs, sessionId])
  const queued = rows.filter((row) => row.status === 'pending').length
  if (queued > 0) await notifyDispatchers(tx)
  return { queued, suppressed: rows.length - queued }
}

/**
 * Queues the gallery link for every guest: by email when the guest gave one, by SMS when the
 * guest gave a phone. Call inside the transaction that completes the session, so that the link
 * is queued if and only if the completion commits; the notification, too, goes out at commit.
 * The links are held for `holdMs`: the copies worker releases them as soon as the session's photos
 * are ready for phones, and after the hold they go whatever the copies' state.
 */
export async function enqueueGalleryLinks(tx: EntityManager, sessionId: string, link: string, holdMs: number): Promise<void> {
  await queueLinks(tx, OUTBOX_QUERIES.enqueue, sessionId, link, holdMs)
}

/**
 * Staff send a live gallery's link to every guest again. A guest and channel with a message still
 * waiting, or created or sent within the last minute, is skipped (OUTBOX_QUERIES.resend): a double
 * click, or two staff members at once, queue one set of messages. A suppressed address is recorded
 * and counted, not sent to.
 */
export async function resendGalleryLinks(
  { em, config, wakeDelivery }: Pick<AppContext, 'em' | 'config' | 'wakeDelivery'>,
  { sessionId }: { sessionId: string },
): Promise<{ queued: number; suppressed: number }> {
  if ((await em.count(Session, { id: sessionId, ...LIVE })) === 0) {
    if ((await em.count(Session, { id: sessionId })) === 0) throw new AppError('no_such_session', NO_SUCH_SESSION)
    throw new AppError('session_not_live', 'The session is not a live gallery')
  }
  const link = galleryLink(config.galleryUrl, sessionId)
  const counts = await em.transactional((tx) => queueLinks(tx, OUTBOX_QUERIES.resend, sessionId, link))
  if (counts.queued > 0) wakeDelivery()
  return counts
}
