import type { EntityManager } from '@mikro-orm/postgresql'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { TeamSettings } from '../../db/entities/team-settings.entity.js'

type Settings = { requireTwoFactor: boolean }

/** The team's rules as they stand (the defaults until an owner changes them). */
export async function getTeamSettings(em: EntityManager): Promise<Settings> {
  const row = await em.findOne(TeamSettings, 1, { disableIdentityMap: true })
  return { requireTwoFactor: row?.requireTwoFactor ?? false }
}

/**
 * The rules every staff request is checked against, read at most every few seconds rather than on
 * each request: a change made on this instance holds at once, one made on another within
 * `RULES_FRESH_MS`.
 */
const RULES_FRESH_MS = 5_000
/** Per database (the ORM's configuration, which its forks share): one process may serve several, as tests do. */
const cached = new WeakMap<object, { settings: Settings; until: number }>()

export async function currentTeamSettings(em: EntityManager): Promise<Settings> {
  const hit = cached.get(em.config)
  if (hit && hit.until > Date.now()) return hit.settings
  const settings = await getTeamSettings(em)
  cached.set(em.config, { settings, until: Date.now() + RULES_FRESH_MS })
  return settings
}

/**
 * An owner changes the team's rules. Requiring a second factor needs the owner to have one: a rule
 * that locked out the one who set it would need `pnpm admin` to undo.
 */
export async function updateTeamSettings(
  { em, staff, auth }: Pick<AppContext, 'em' | 'staff' | 'auth'>,
  changes: { requireTwoFactor: boolean },
): Promise<{ requireTwoFactor: boolean }> {
  if (changes.requireTwoFactor && staff) {
    // The member as stored now (Better Auth's internal adapter: docs/architecture.md, "Better Auth's
    // internal adapter"); get-session would need the request's cookie, which a domain function is not given.
    const user = (await (await auth.$context).internalAdapter.findUserById(staff.memberId)) as { twoFactorEnabled?: boolean } | null
    if (!user?.twoFactorEnabled)
      throw new AppError('own_two_factor_required', 'Set up your own second factor first (POST /api/auth/two-factor/enable)')
  }
  await em.upsert(TeamSettings, { id: 1, requireTwoFactor: changes.requireTwoFactor })
  cached.delete(em.config)
  return getTeamSettings(em)
}
