import { EntitySchema } from '@mikro-orm/core'

/**
 * A provider's delivery of a webhook seen, for a while (`REPLAY_MEMORY` in receipts.queries.ts), so
 * that it is applied once: a signed STOP or START sent again (Twilio's retry of one already applied,
 * or a captured request replayed) changes nothing. Only a hash of the delivery's token is kept.
 */
export class WebhookReplay {
  keyHash!: string
  seenAt = new Date()
}

export const WebhookReplaySchema = new EntitySchema<WebhookReplay>({
  class: WebhookReplay,
  tableName: 'webhook_replay',
  indexes: [{ name: 'webhook_replay_seen_at_index', properties: ['seenAt'] }],
  properties: {
    keyHash: { type: 'text', primary: true },
    seenAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
