import { EntitySchema } from '@mikro-orm/core'

import { Session } from './session.entity.js'

/**
 * A booth's claim on an active session (modules/booth/claims.service.ts): until `expiresAt`, the
 * session is out of other booths' queues. The claimant is a booth key and the name its booth gives
 * itself (`holder`, '' for none), since booths may share a key. Goes with its session.
 */
export class SessionClaim {
  session!: Session
  boothKeyId!: string
  holder = ''
  claimedAt!: Date
  expiresAt!: Date
}

export const SessionClaimSchema = new EntitySchema<SessionClaim>({
  class: SessionClaim,
  tableName: 'session_claim',
  checks: [{ name: 'session_claim_holder_check', expression: 'length(holder) <= 100' }],
  properties: {
    session: {
      kind: 'm:1',
      entity: () => Session,
      primary: true,
      foreignKeyName: 'session_claim_session_id_fkey',
      deleteRule: 'cascade',
      updateRule: 'no action',
    },
    boothKeyId: { type: 'text' },
    holder: { type: 'text', default: '' },
    claimedAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
  },
})
