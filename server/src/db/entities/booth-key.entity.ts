import { EntitySchema } from '@mikro-orm/core'

/** A booth's credential. The secret is never stored: only its SHA-256. */
export class BoothKey {
  /** Public part of the key, the lookup handle; also shown in listings. */
  id!: string
  name!: string
  secretHash!: Buffer
  createdAt = new Date()
  lastUsedAt?: Date
  revokedAt?: Date
  /** The events the key works for; null: every event (an unscoped key). */
  eventIds?: string[] | null
}

export const BoothKeySchema = new EntitySchema<BoothKey>({
  class: BoothKey,
  tableName: 'booth_key',
  checks: [
    { name: 'booth_key_name_check', expression: 'length(name) >= 1 and length(name) <= 100' },
    { name: 'booth_key_secret_hash_check', expression: 'length(secret_hash) = 32' },
  ],
  properties: {
    id: { type: 'text', primary: true },
    name: { type: 'text' },
    secretHash: { type: 'blob' },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    lastUsedAt: { type: 'Date', nullable: true },
    revokedAt: { type: 'Date', nullable: true },
    eventIds: { type: 'text[]', nullable: true },
  },
})
