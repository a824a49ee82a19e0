import type { EntityManager } from '@mikro-orm/postgresql'

import { newId } from '../../ids.js'

/** The channel on which queued messages are announced, to the dispatchers of every instance. */
export const OUTBOX_CHANNEL = 'outbox_message'

/**
 * Queues the gallery link for every guest: by email when the guest gave one, by SMS when the
 * guest gave a phone. Call inside the transaction that completes the session, so that the link
 * is queued if and only if the completion commits; the notification, too, goes out at commit.
 */
export async function enqueueGalleryLinks(tx: EntityManager, sessionId: string, link: string): Promise<number> {
  const rows = await tx.execute<{ id: string }[]>(
    `insert into outbox_message (id, session_id, session_guest_id, channel, recipient, link)
     select (select ?::text) || '-' || g.position || '-' || c.channel, g.session_id, g.id, c.channel,
            case c.channel when 'email' then g.email else g.phone end, ?
       from session_guest g
       cross join (values ('email'), ('sms')) as c (channel)
      where g.session_id = ?
        and case c.channel when 'email' then g.email else g.phone end is not null
     returning id`,
    [newId(), link, sessionId],
  )
  if (rows.length > 0) await tx.execute(`select pg_notify('${OUTBOX_CHANNEL}', '')`)
  return rows.length
}
