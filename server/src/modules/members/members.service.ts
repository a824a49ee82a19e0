import { randomBytes } from 'node:crypto'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { PASSWORD_LENGTH } from '@photobooth/sdk/schemas'

import { lockFor } from '../../db/lock.js'
import { roleOf, type StaffAuth, type StaffCaller, type StaffRole, weakPasswordReason } from '../staff/index.js'

export type StaffMember = { id: string; email: string; name: string; role: StaffRole; twoFactorEnabled: boolean; createdAt: number }

type Deps = { auth: StaffAuth }

type User = { id: string; email: string; name: string; createdAt: Date; role?: unknown; twoFactorEnabled?: unknown }

/*
 * Better Auth's `internalAdapter` here, not its public API (docs/architecture.md, "Better Auth's
 * internal adapter"): sign-up is closed (`signUpEmail` refuses), and the admin plugin's endpoints
 * (create-user, get-user, list-users, set-role, remove-user) need an admin plugin session whose role
 * its own access control allows, which `pnpm admin` and a service call do not have, plus the
 * plugin's schema (ban columns, `impersonatedBy`) and its role model in place of ours. Each call
 * below is one the admin plugin's endpoint itself makes. Pinned by test/members and test/staff.
 */

const toMember = (user: User): StaffMember => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: roleOf(user.role),
  twoFactorEnabled: user.twoFactorEnabled === true,
  createdAt: user.createdAt.getTime(),
})

/** The lock that makes changes to the team one at a time: each sees the team as the last one left it. */
const TEAM_LOCK = 'photobooth:staff-members'

/** A password that is only ever shown once: 144 random bits, in characters a person can type. */
export function oneTimePassword(): string {
  return randomBytes(18).toString('base64url')
}

function checkPassword(password: string, userInputs: string[]): void {
  if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
    throw new AppError('weak_password', `A password needs ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`)
  }
  const weak = weakPasswordReason(password, userInputs)
  if (weak) throw new AppError('weak_password', weak)
}

/**
 * Creates a staff member who signs in with this email and password. Sign-up is closed, so this is
 * the only way in: the admin command for the first member, the members route for the others.
 */
export async function createStaffMember(
  { auth }: Deps,
  input: { email: string; name: string; password: string; role: StaffRole; mustChangePassword?: boolean },
): Promise<StaffMember> {
  checkPassword(input.password, [input.email, input.name])
  const ctx = await auth.$context
  const email = input.email.trim().toLowerCase()
  const taken = () => new AppError('email_taken', `A staff member with the email ${email} already exists`)
  // As admin create-user does (without a session: the admin command has none).
  if (await ctx.internalAdapter.findUserByEmail(email)) throw taken()
  const hash = await ctx.password.hash(input.password)
  // The unique email settles two invitations racing past the check above.
  const user = await ctx.internalAdapter
    .createUser(
      { email, name: input.name.trim(), emailVerified: true, role: input.role, mustChangePassword: input.mustChangePassword ?? false },
      { method: 'admin' },
    )
    .catch((error: unknown) => {
      throw isUniqueViolation(error) ? taken() : error
    })
  // Its credential account, as admin create-user links it.
  await ctx.internalAdapter.linkAccount({ userId: user.id, providerId: 'credential', accountId: user.id, password: hash })
  return toMember(user)
}

/** PostgreSQL's unique_violation, as Better Auth's Kysely adapter passes the driver's error on. */
const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23505'

export async function getStaffMember({ auth }: Deps, memberId: string): Promise<StaffMember> {
  // admin get-user needs an admin session; `pnpm admin` and the /staff/me handler read by id.
  const user = await (await auth.$context).internalAdapter.findUserById(memberId)
  if (!user) throw new AppError('no_such_member', 'no such staff member')
  return toMember(user)
}

export async function listStaffMembers({ auth }: Deps): Promise<StaffMember[]> {
  const ctx = await auth.$context
  // admin list-users needs an admin session, and pages by 100 unless told.
  const users = await ctx.internalAdapter.listUsers(undefined, undefined, { field: 'createdAt', direction: 'asc' })
  return users.map(toMember)
}

/** The owners left: the team's last owner can be neither removed nor made anything else. */
async function owners(ctx: Awaited<StaffAuth['$context']>): Promise<User[]> {
  // Read inside the team's lock (see removeStaffMember): no endpoint answers this.
  return (await ctx.internalAdapter.listUsers()).filter((user) => roleOf((user as User).role) === 'owner')
}

/**
 * Inside the team's lock, the acting member as they are now: a member removed or demoted meanwhile
 * (another owner's change that came first) acts no more.
 */
async function stillOwner(ctx: Awaited<StaffAuth['$context']>, staff: StaffCaller | undefined): Promise<void> {
  if (!staff) return
  // Read again inside the team's lock: the caller's session says what they were, not what they are now.
  const actor = (await ctx.internalAdapter.findUserById(staff.memberId)) as User | null
  if (!actor) throw new AppError('concurrent_change', 'You were removed by another staff member meanwhile')
  if (roleOf(actor.role) !== 'owner') throw new AppError('concurrent_change', 'Your role was changed by another owner meanwhile')
}

/**
 * Removes a staff member and ends their sessions at once. A member cannot remove themselves, and
 * removals happen one at a time, each checking that its remover is still an owner: two owners
 * removing each other at once leave one of them, so there is always someone who can sign in.
 */
export async function removeStaffMember({ auth, staff, em }: Deps & Pick<AppContext, 'staff' | 'em'>, memberId: string): Promise<void> {
  if (staff?.memberId === memberId) throw new AppError('cannot_remove_self', 'You cannot remove yourself; ask another owner')
  const ctx = await auth.$context
  await em.transactional(async (tx) => {
    // Held until Better Auth's deletion (on its own connection) has committed.
    await lockFor(tx, TEAM_LOCK)
    await stillOwner(ctx, staff)
    const member = (await ctx.internalAdapter.findUserById(memberId)) as User | null
    if (!member) throw new AppError('no_such_member', 'no such staff member')
    if (roleOf(member.role) === 'owner' && (await owners(ctx)).length <= 1) throw new AppError('last_owner', LAST_OWNER)
    // admin remove-user makes this call (it deletes the sessions and accounts too), after checks ours replace.
    await ctx.internalAdapter.deleteUser(memberId)
  })
}

const LAST_OWNER = 'This is the last owner: make another member owner first'

/**
 * Gives a member another role. The team's last owner cannot be made anything else (409); the actor
 * may be changing their own role, as long as another owner remains. One change at a time, as removals.
 */
export async function setStaffRole(
  { auth, staff, em }: Deps & Pick<AppContext, 'staff' | 'em'>,
  { memberId, role }: { memberId: string; role: StaffRole },
): Promise<StaffMember> {
  const ctx = await auth.$context
  return em.transactional(async (tx) => {
    await lockFor(tx, TEAM_LOCK)
    await stillOwner(ctx, staff)
    const member = (await ctx.internalAdapter.findUserById(memberId)) as User | null
    if (!member) throw new AppError('no_such_member', 'no such staff member')
    if (roleOf(member.role) === 'owner' && role !== 'owner' && (await owners(ctx)).length <= 1) throw new AppError('last_owner', LAST_OWNER)
    // admin set-role makes this call; `role` is not a field a member's own update-user may set (input: false).
    const updated = (await ctx.internalAdapter.updateUser(memberId, { role })) as User
    return toMember(updated)
  })
}
