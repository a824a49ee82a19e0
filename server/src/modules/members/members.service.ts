import { randomBytes } from 'node:crypto'

import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { PASSWORD_LENGTH } from '@photobooth/sdk/schemas'

import { lockFor } from '../../db/lock.js'
import type { StaffAuth } from '../staff/auth.js'

export type StaffMember = { id: string; email: string; name: string; createdAt: number }

type Deps = { auth: StaffAuth }

const toMember = (user: { id: string; email: string; name: string; createdAt: Date }): StaffMember => ({
  id: user.id,
  email: user.email,
  name: user.name,
  createdAt: user.createdAt.getTime(),
})

/** A password that is only ever shown once: 144 random bits, in characters a person can type. */
export function oneTimePassword(): string {
  return randomBytes(18).toString('base64url')
}

function checkPassword(password: string): void {
  if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
    throw new AppError('BAD_REQUEST', `A password needs ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`)
  }
}

/**
 * Creates a staff member who signs in with this email and password. Sign-up is closed, so this is
 * the only way in: the admin command for the first member, the members route for the others.
 */
export async function createStaffMember({ auth }: Deps, input: { email: string; name: string; password: string }): Promise<StaffMember> {
  checkPassword(input.password)
  const ctx = await auth.$context
  const email = input.email.trim().toLowerCase()
  const taken = () => new AppError('CONFLICT', `A staff member with the email ${email} already exists`)
  if (await ctx.internalAdapter.findUserByEmail(email)) throw taken()
  const hash = await ctx.password.hash(input.password)
  // The unique email settles two invitations racing past the check above.
  const user = await ctx.internalAdapter
    .createUser({ email, name: input.name.trim(), emailVerified: true }, { method: 'admin' })
    .catch((error: unknown) => {
      throw isUniqueViolation(error) ? taken() : error
    })
  await ctx.internalAdapter.linkAccount({ userId: user.id, providerId: 'credential', accountId: user.id, password: hash })
  return toMember(user)
}

/** PostgreSQL's unique_violation, as Better Auth's Kysely adapter passes the driver's error on. */
const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23505'

export async function getStaffMember({ auth }: Deps, memberId: string): Promise<StaffMember> {
  const user = await (await auth.$context).internalAdapter.findUserById(memberId)
  if (!user) throw new AppError('NOT_FOUND', 'no such staff member')
  return toMember(user)
}

export async function listStaffMembers({ auth }: Deps): Promise<StaffMember[]> {
  const ctx = await auth.$context
  const users = await ctx.internalAdapter.listUsers(undefined, undefined, { field: 'createdAt', direction: 'asc' })
  return users.map(toMember)
}

/**
 * Removes a staff member and ends their sessions at once. A member cannot remove themselves, and
 * removals happen one at a time, each checking that its remover is still a member: two members
 * removing each other at once leave one of them, so there is always someone who can sign in.
 */
export async function removeStaffMember({ auth, staff, em }: Deps & Pick<AppContext, 'staff' | 'em'>, memberId: string): Promise<void> {
  if (staff?.memberId === memberId) throw new AppError('CONFLICT', 'You cannot remove yourself; ask another staff member')
  const ctx = await auth.$context
  await em.transactional(async (tx) => {
    // Held until Better Auth's deletion (on its own connection) has committed.
    await lockFor(tx, 'photobooth:staff-members')
    if (staff && !(await ctx.internalAdapter.findUserById(staff.memberId))) {
      throw new AppError('CONFLICT', 'You were removed by another staff member meanwhile')
    }
    if (!(await ctx.internalAdapter.findUserById(memberId))) throw new AppError('NOT_FOUND', 'no such staff member')
    await ctx.internalAdapter.deleteUser(memberId)
  })
}
