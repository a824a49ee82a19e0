import { EntitySchema } from '@mikro-orm/core'

export const IDEMPOTENCY_STATES = ['running', 'done'] as const
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number]

/**
 * One `Idempotency-Key` of one caller (docs/api.md, "Retries and idempotency keys"): claimed `running` by
 * the request that acts, then `done` with the answer it gave, which retries replay until `expiresAt`.
 * Written and read through `idempotency.queries.ts`.
 */
export class IdempotencyKey {
  /** Whose key it is: `booth:<key id>`, `staff:<member id>` or `ip:<client key>` (the kiosk). */
  scope!: string
  key!: string
  /** The claim holding the row (random per claim): only it may store the answer or release the key. */
  owner!: string
  /** Method and canonical path, with its query sorted: `POST /booth/sessions/…/complete`. */
  request!: string
  /** SHA-256 (hex) of the body as oRPC parsed it. */
  bodyHash!: string
  state: IdempotencyState = 'running'
  /** The answer, once `done`: status, media type and bytes (null for a bodiless answer). */
  status?: number
  contentType?: string
  body?: Buffer
  createdAt = new Date()
  /** 24 hours after the claim: from then on the row is ignored, then pruned, and the key acts again. */
  expiresAt!: Date
  /** While `running`: the owner's lease, renewed as it runs; a row past it was left by a dead process. */
  lockedUntil!: Date
}

export const IdempotencyKeySchema = new EntitySchema<IdempotencyKey>({
  class: IdempotencyKey,
  tableName: 'idempotency_key',
  // The hourly prune deletes by expiry.
  indexes: [{ name: 'idempotency_key_expires_at_index', properties: ['expiresAt'] }],
  checks: [
    { name: 'idempotency_key_key_check', expression: 'length(key) >= 1 and length(key) <= 255' },
    { name: 'idempotency_key_answer_check', expression: "state = 'running' or status is not null" },
  ],
  properties: {
    scope: { type: 'text', primary: true },
    key: { type: 'text', primary: true },
    owner: { type: 'text' },
    request: { type: 'text' },
    bodyHash: { type: 'text' },
    // An enum property: MikroORM checks it against IDEMPOTENCY_STATES as idempotency_key_state_check.
    state: { enum: true, items: () => IDEMPOTENCY_STATES, default: 'running' },
    status: { type: 'integer', nullable: true },
    contentType: { type: 'text', nullable: true },
    body: { type: 'blob', nullable: true },
    createdAt: { type: 'Date', defaultRaw: 'now()' },
    expiresAt: { type: 'Date' },
    lockedUntil: { type: 'Date' },
  },
})
