import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

import type { EntityManager } from '@mikro-orm/postgresql'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { Event } from '../../db/entities/event.entity.js'
import { NO_SUCH_EVENT } from '../events/index.js'
import { requireOwnerFor } from '../staff/index.js'
import { BoothKey } from '../../db/entities/booth-key.entity.js'

/** `pbk_<id>_<secret>`: recognisable in logs and by secret scanners, 256 random bits of secret. */
const KEY_PREFIX = 'pbk_'
const KEY_FORMAT = /^pbk_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest()

function newKeyId(): string {
  // 12 characters of 62: rejection-free enough for a handle, uniqueness is enforced by the key.
  return Array.from(randomBytes(12), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('')
}

export type CreatedBoothKey = { id: string; name: string; key: string; createdAt: Date; eventIds: string[] | null }

/** Creates a key and returns it whole: this is the only time the secret exists outside the booth. */
export async function createBoothKey(
  em: EntityManager,
  name: string,
  now = new Date(),
  eventIds: string[] | null = null,
): Promise<CreatedBoothKey> {
  const trimmed = name.trim()
  if (!trimmed || trimmed.length > 100) throw new AppError('invalid_name', 'A booth key needs a name of 1 to 100 characters')
  const id = newKeyId()
  const secret = randomBytes(32).toString('base64url')
  em.create(BoothKey, { id, name: trimmed, secretHash: hashSecret(secret), createdAt: now, eventIds })
  await em.flush()
  return { id, name: trimmed, key: `${KEY_PREFIX}${id}_${secret}`, createdAt: now, eventIds }
}

/** A booth as its key allows it: `eventIds` null for an unscoped key (every event). */
export type BoothCaller = { keyId: string; name: string; eventIds: string[] | null }

/** Last use is a coarse signal: written at most this often, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000

/**
 * The booth a presented key belongs to, or undefined when the key is unknown, wrong or revoked.
 * The secret is compared in constant time; last use is recorded at most once a minute.
 */
export async function authenticateBoothKey(em: EntityManager, presented: string, now = new Date()): Promise<BoothCaller | undefined> {
  const match = KEY_FORMAT.exec(presented)
  if (!match) return undefined
  const [, id, secret] = match as unknown as [string, string, string]
  const row = await em.findOne(BoothKey, id, { fields: ['name', 'secretHash', 'revokedAt', 'eventIds'], disableIdentityMap: true })
  const presentedHash = hashSecret(secret)
  // Compare even for unknown ids, so that timing tells nothing about which ids exist.
  const storedHash = row?.secretHash ?? Buffer.alloc(presentedHash.length)
  const secretMatches = timingSafeEqual(presentedHash, storedHash)
  if (!row || !secretMatches || row.revokedAt) return undefined
  const aMinuteAgo = new Date(now.getTime() - LAST_USED_RESOLUTION_MS)
  await em.nativeUpdate(BoothKey, { id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: aMinuteAgo } }] }, { lastUsedAt: now })
  return { keyId: row.id, name: row.name, eventIds: row.eventIds ?? null }
}

export async function revokeBoothKey(em: EntityManager, id: string, now = new Date()): Promise<boolean> {
  return (await em.nativeUpdate(BoothKey, { id, revokedAt: null }, { revokedAt: now })) > 0
}

export async function listBoothKeys(em: EntityManager) {
  return em.find(
    BoothKey,
    {},
    { orderBy: { createdAt: 'asc', id: 'asc' }, fields: ['id', 'name', 'createdAt', 'lastUsedAt', 'revokedAt', 'eventIds'] },
  )
}

type KeyRow = Pick<BoothKey, 'id' | 'name' | 'createdAt' | 'lastUsedAt' | 'revokedAt' | 'eventIds'>

/** A key as staff see it: never its secret, nor even its hash. */
const toStaffBoothKey = (key: KeyRow) => ({
  id: key.id,
  name: key.name,
  createdAt: key.createdAt.getTime(),
  lastUsedAt: key.lastUsedAt?.getTime() ?? null,
  revokedAt: key.revokedAt?.getTime() ?? null,
  eventIds: key.eventIds ?? null,
  unscoped: !key.eventIds,
})

export async function listStaffBoothKeys({ em }: Pick<AppContext, 'em'>) {
  return { keys: (await listBoothKeys(em)).map(toStaffBoothKey) }
}

/**
 * A key for chosen events, or (owners only) for every event. The events must exist: a key scoped to
 * nothing real would be a key for nothing.
 */
export async function createStaffBoothKey(
  { em, now, staff }: Pick<AppContext, 'em' | 'now' | 'staff'>,
  { name, eventIds }: { name: string; eventIds?: string[] },
) {
  if (!eventIds) requireOwnerFor(staff, 'a key for every event: give eventIds')
  const scope = eventIds ? [...new Set(eventIds)] : null
  if (scope && (await em.count(Event, { id: { $in: scope } })) !== scope.length) throw new AppError('no_such_event', NO_SUCH_EVENT)
  const created = await createBoothKey(em, name, now(), scope)
  return { ...toStaffBoothKey(created), key: created.key }
}

/** Revoking twice changes nothing: the key keeps the time of its first revocation. */
export async function revokeStaffBoothKey({ em, now }: Pick<AppContext, 'em' | 'now'>, { keyId }: { keyId: string }) {
  await revokeBoothKey(em, keyId, now())
  const key = await em.findOne(BoothKey, keyId, { fields: ['name', 'createdAt', 'lastUsedAt', 'revokedAt', 'eventIds'] })
  if (!key) throw new AppError('no_such_booth_key', 'no such booth key')
  return toStaffBoothKey(key)
}
