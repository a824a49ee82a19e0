import { EntitySchema } from '@mikro-orm/core'

/**
 * A second-factor code a member has used, kept while it could still be accepted (the app's code is
 * valid for a step either side of now: 90 s), so that it is accepted once (RFC 6238 §5.2): a code seen
 * over a shoulder or in a phished page opens nothing after its owner used it. The code itself is not
 * kept, only a hash of it with the member.
 */
export class UsedTotp {
  userId!: string
  codeHash!: string
  usedAt = new Date()
}

export const UsedTotpSchema = new EntitySchema<UsedTotp>({
  class: UsedTotp,
  tableName: 'staff_used_totp',
  properties: {
    userId: { type: 'text', primary: true },
    codeHash: { type: 'text', primary: true },
    usedAt: { type: 'Date', defaultRaw: 'now()' },
  },
})
