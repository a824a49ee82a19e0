import type { EntityManager } from '@mikro-orm/postgresql'

import { newId } from '../../ids.js'
import { OUTBOX_QUERIES } from './outbox.queries.js'

/** The channel on which queued messages are announced, to the dispatchers of every instance. */
export const OUTBOX_CHANNEL = 'outbox_message'

/**
 * Queues the gallery link for every guest: by email when the guest gave one, by SMS when the
 * guest gave a phone. Call inside the transaction that completes the session, so that the link
 * is queued if and only if the completion commits; the notification, too, goes out at commit.
 */
export async function enqueueGalleryLinks(tx: EntityManager, sessionId: string, link: string): Promise<void> {
  const rows = await tx.execute<{ id: string }[]>(OUTBOX_QUERIES.enqueue, [newId(), link, sessionId])
  // Sent at commit, to the dispatchers of every instance.
  if (rows.length > 0) await tx.execute('select pg_notify(?, ?)', [OUTBOX_CHANNEL, ''])
}
