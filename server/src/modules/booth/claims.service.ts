import type { EntityManager } from '@mikro-orm/postgresql'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import type { BoothCaller } from '../booth-keys/index.js'
import { requireActiveSession } from '../sessions/index.js'
import { listQueue, readQueuedSession } from './booth-queue.service.js'
import { CLAIM_QUERIES, type LiveClaimRow } from './claims.queries.js'
import { SessionClaim } from '../../db/entities/session-claim.entity.js'
import { run } from '../../db/query.js'

type ClaimDeps = Pick<AppContext, 'em' | 'now'> & { booth: BoothCaller }
type Claimant = { holder?: string | undefined; ttlSeconds: number }

/** Tries of a claim that lost a race to another booth's (it then takes the one after). */
const CLAIM_TRIES = 5

const claimRow = (booth: BoothCaller, holder: string | undefined, now: Date, ttlSeconds: number) => [
  booth.keyId,
  holder ?? '',
  now,
  new Date(now.getTime() + ttlSeconds * 1000),
]

/**
 * Claims the oldest active session of a set that nobody holds, for `ttlSeconds`: it leaves the other
 * booths' queues until then, or until released. Null when nobody waits.
 */
export async function claimNextSession(deps: ClaimDeps, { setId, holder, ttlSeconds }: { setId: string } & Claimant) {
  for (let tries = 0; tries < CLAIM_TRIES; tries++) {
    const now = deps.now()
    const [row] = await run(deps.em, CLAIM_QUERIES.claimNext, [setId, now, ...claimRow(deps.booth, holder, now, ttlSeconds)])
    if (row) return { session: await claimedSession(deps, row.sessionId) }
    // Nobody waits, or another booth's claim took the session this one read meanwhile: read again.
    const { sessions } = await listQueue(deps, { setId, holder: holder ?? '' })
    if (sessions.length === 0) return { session: null }
  }
  return { session: null }
}

/** Claims a named session (a guest's QR code), or renews this booth's own claim: 409 while another booth holds it. */
export async function claimSession(deps: ClaimDeps, { sessionId, holder, ttlSeconds }: { sessionId: string } & Claimant) {
  await requireActiveSession(deps.em, sessionId)
  const now = deps.now()
  const [row] = await run(deps.em, CLAIM_QUERIES.claim, [sessionId, ...claimRow(deps.booth, holder, now, ttlSeconds)])
  if (!row) throw await heldElsewhere(deps.em, sessionId)
  return claimedSession(deps, sessionId)
}

/** Gives the session back to the queue, in its place; `released` is false when this booth held no claim on it. */
export async function releaseSession(deps: ClaimDeps, { sessionId, holder }: { sessionId: string; holder?: string | undefined }) {
  const claim = await deps.em.findOne(SessionClaim, { session: sessionId }, { disableIdentityMap: true })
  if (!claim) {
    await requireActiveSession(deps.em, sessionId)
    return { id: sessionId, released: false }
  }
  const mine = claim.boothKeyId === deps.booth.keyId && claim.holder === (holder ?? '')
  if (!mine && claim.expiresAt > deps.now()) throw await heldElsewhere(deps.em, sessionId)
  await deps.em.nativeDelete(SessionClaim, { session: sessionId, boothKeyId: claim.boothKeyId, holder: claim.holder })
  return { id: sessionId, released: mine }
}

/** The live claims of these sessions (active ones), for staff: which booth holds each and until when. */
export async function liveClaims(em: EntityManager, sessionIds: readonly string[], now: Date) {
  const claims = new Map<string, Omit<LiveClaimRow, 'sessionId' | 'holder'> & { holder: string | null }>()
  if (sessionIds.length === 0) return claims
  for (const { sessionId, holder, ...claim } of await run(em, CLAIM_QUERIES.live, [[...sessionIds], now]))
    claims.set(sessionId, { ...claim, holder: holder || null })
  return claims
}

async function claimedSession(deps: ClaimDeps, sessionId: string) {
  const claim = await deps.em.findOneOrFail(SessionClaim, { session: sessionId }, { disableIdentityMap: true })
  return {
    ...(await readQueuedSession(deps, sessionId)),
    claim: { holder: claim.holder || null, claimedAt: claim.claimedAt.getTime(), expiresAt: claim.expiresAt.getTime() },
  }
}

async function heldElsewhere(em: EntityManager, sessionId: string): Promise<AppError> {
  const claim = await em.findOne(SessionClaim, { session: sessionId }, { fields: ['expiresAt'], disableIdentityMap: true })
  const until = claim ? new Date(claim.expiresAt).toISOString() : 'a moment ago'
  return new AppError('session_claimed', `Another booth holds this session until ${until}`)
}
