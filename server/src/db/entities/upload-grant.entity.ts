import { EntitySchema } from '@mikro-orm/core'

import { Session } from './session.entity.js'

/**
 * Which booth key asked for an upload URL (modules/booth/uploads.service.ts): once that key is
 * revoked, the local bucket refuses the URL, and completion does not take the photo, whatever the URL's
 * own expiry (15 minutes). Goes with its session.
 */
export class UploadGrant {
  storageKey!: string
  session!: Session
  boothKeyId!: string
  createdAt = new Date()
}

export const UploadGrantSchema = new EntitySchema<UploadGrant>({
  class: UploadGrant,
  tableName: 'upload_grant',
  indexes: [{ name: 'upload_grant_session_id_index', properties: ['session'] }],
  properties: {
    storageKey: { type: 'text', primary: true },
    session: {
      kind: 'm:1',
      entity: () => Session,
      foreignKeyName: 'upload_grant_session_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    boothKeyId: { type: 'text' },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
