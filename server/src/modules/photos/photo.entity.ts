import { EntitySchema } from '@mikro-orm/core'

import { Session } from '../sessions/session.entity.js'

export class Photo {
  id!: string
  session!: Session
  /** 1-based place in gallery order. */
  position!: number
  storageKey!: string
  width!: number
  height!: number
  sizeBytes!: number
  /** The stored object's ETag at completion; absent on photos recorded before it was kept. */
  etag?: string
  createdAt = new Date()
}

export const PhotoSchema = new EntitySchema<Photo>({
  class: Photo,
  tableName: 'photo',
  uniques: [{ name: 'photo_session_id_position_unique', properties: ['session', 'position'] }],
  checks: [
    { name: 'photo_position_check', expression: 'position >= 1' },
    { name: 'photo_width_check', expression: 'width > 0' },
    { name: 'photo_height_check', expression: 'height > 0' },
    { name: 'photo_size_bytes_check', expression: 'size_bytes >= 0' },
  ],
  properties: {
    id: { type: 'text', primary: true },
    session: { kind: 'm:1', entity: () => Session, foreignKeyName: 'photo_session_id_fkey', deleteRule: 'cascade', updateRule: 'no action' },
    position: { type: 'integer' },
    storageKey: { type: 'text', unique: 'photo_storage_key_key' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    sizeBytes: { type: 'integer' },
    etag: { type: 'text', nullable: true },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
