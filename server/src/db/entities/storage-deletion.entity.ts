import { EntitySchema } from '@mikro-orm/core'

/**
 * A storage prefix whose objects must go (a deleted session's photos): written in the transaction
 * that deletes the rows, removed once storage has deleted every object under it.
 */
export class StorageDeletion {
  prefix!: string
  attempts = 0
  lastError?: string
  createdAt = new Date()
}

export const StorageDeletionSchema = new EntitySchema<StorageDeletion>({
  class: StorageDeletion,
  tableName: 'storage_deletion',
  checks: [{ name: 'storage_deletion_attempts_check', expression: 'attempts >= 0' }],
  properties: {
    prefix: { type: 'text', primary: true },
    attempts: { type: 'integer', default: 0 },
    lastError: { type: 'text', nullable: true },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
