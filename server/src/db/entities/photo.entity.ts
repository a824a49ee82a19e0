import { EntitySchema, type OptionalProps } from '@mikro-orm/core'

import { Session } from './session.entity.js'

/**
 * Where a photo's copies stand: `queued` until the copies worker has made them, then `ready`, or
 * `failed` (with `imageError`) when the display copies could not be made; `legacy` for photos
 * recorded before copies existed, served as uploaded until they are queued.
 */
export const IMAGE_STATUSES = ['legacy', 'queued', 'ready', 'failed'] as const
export type ImageStatus = (typeof IMAGE_STATUSES)[number]

/** A display copy's pixel size; its key is `copyKey(session, "<photo id>-<width>", WebP)`. */
export type DisplayCopy = { width: number; height: number }

export class Photo {
  /** The copies' columns start from their database defaults: completion does not name them. */
  declare [OptionalProps]?: 'imageStatus' | 'imageAttempts' | 'imageDueAt' | 'preview'
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
  imageStatus: ImageStatus = 'queued'
  /** Claims by the copies worker; past the limit the photo is `failed`. */
  imageAttempts = 0
  /** When the worker may take it (again): a claim moves it a lease ahead. */
  imageDueAt = new Date()
  /** Why the copies could not be made, for staff. */
  imageError?: string
  /** The full-size copy guests download (`copyKey(session, id, JPEG)`): its size and ETag once stored. */
  fullSize?: number
  fullEtag?: string
  /** The display copies made, smallest first. */
  copies?: DisplayCopy[]
  /** Whether the session's link preview (`copyKey(session, 'preview', JPEG)`) was made from this photo. */
  preview = false
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
    { name: 'photo_image_attempts_check', expression: 'image_attempts >= 0' },
  ],
  indexes: [
    { name: 'photo_image_due_idx', expression: `create index photo_image_due_idx on photo (image_due_at) where image_status = 'queued'` },
  ],
  properties: {
    id: { type: 'text', primary: true },
    session: {
      kind: 'm:1',
      entity: () => Session,
      foreignKeyName: 'photo_session_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    position: { type: 'integer' },
    storageKey: { type: 'text', unique: 'photo_storage_key_key' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    sizeBytes: { type: 'integer' },
    etag: { type: 'text', nullable: true },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    // An enum property: MikroORM checks it against IMAGE_STATUSES as photo_image_status_check.
    imageStatus: { enum: true, items: () => IMAGE_STATUSES, default: 'queued' },
    imageAttempts: { type: 'integer', default: 0 },
    imageDueAt: { type: 'Date', defaultRaw: 'now()' },
    imageError: { type: 'text', nullable: true },
    fullSize: { type: 'integer', nullable: true },
    fullEtag: { type: 'text', nullable: true },
    copies: { type: 'json', nullable: true },
    preview: { type: 'boolean', default: false },
  },
})
