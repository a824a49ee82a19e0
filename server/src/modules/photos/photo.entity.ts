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
  uniques: [{ properties: ['session', 'position'] }],
  properties: {
    id: { type: 'string', primary: true },
    session: { kind: 'm:1', entity: () => Session, deleteRule: 'cascade' },
    position: { type: 'integer' },
    storageKey: { type: 'string', unique: true },
    width: { type: 'integer' },
    height: { type: 'integer' },
    sizeBytes: { type: 'integer' },
    etag: { type: 'text', nullable: true },
    createdAt: { type: 'Date' },
  },
})
