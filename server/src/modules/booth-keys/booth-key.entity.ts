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
}

export const BoothKeySchema = new EntitySchema<BoothKey>({
  class: BoothKey,
  tableName: 'booth_key',
  properties: {
    id: { type: 'string', primary: true },
    name: { type: 'string' },
    secretHash: { type: 'blob' },
    createdAt: { type: 'Date' },
    lastUsedAt: { type: 'Date', nullable: true },
    revokedAt: { type: 'Date', nullable: true },
  },
})
