import { EntitySchema } from '@mikro-orm/core'
import { SUPPRESSION_CHANNELS, SUPPRESSION_REASONS } from '@photobooth/sdk/schemas'

export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number]

/**
 * An address that gets no gallery link: it bounced hard, complained of spam, or texted STOP. Kept as a
 * one-way hash of the address (`addressHash` in modules/messages/suppressions.queries.ts), not the address: the list
 * outlives a guest's erasure and the purge (an opt-out stays honoured) without keeping their contact
 * details. A hash of an address is pseudonymous, not anonymous: whoever holds the database and a
 * candidate address can test it, which is what lookups and lifting need.
 */
export class Suppression {
  channel!: (typeof SUPPRESSION_CHANNELS)[number]
  addressHash!: string
  reason!: SuppressionReason
  createdAt = new Date()
}

export const SuppressionSchema = new EntitySchema<Suppression>({
  class: Suppression,
  tableName: 'suppression',
  properties: {
    // Enum properties: MikroORM checks them against the lists (suppression_channel_check, _reason_check).
    channel: { enum: true, items: () => SUPPRESSION_CHANNELS, primary: true },
    addressHash: { type: 'text', primary: true },
    reason: { enum: true, items: () => SUPPRESSION_REASONS },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
