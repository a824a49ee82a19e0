import { STAFF_ROLES } from '@photobooth/sdk/schemas'

import { AppError } from '../../errors.js'

export type StaffRole = (typeof STAFF_ROLES)[number]

/** Whether a member of `role` may do what needs `needed`: each role may all that the ones after it in STAFF_ROLES may. */
export function mayAct(role: StaffRole, needed: StaffRole): boolean {
  return STAFF_ROLES.indexOf(role) <= STAFF_ROLES.indexOf(needed)
}

/** A stored role as a role: anything else (a row written by hand) is the least. */
export function roleOf(value: unknown): StaffRole {
  return STAFF_ROLES.includes(value as StaffRole) ? (value as StaffRole) : 'staff'
}

/**
 * Why a member of `role` may not do what needs `needed` (the 403's words), or undefined when they
 * may. A route that declares no role is the owners' (test/staff/roles.test.ts keeps every one declared).
 */
export function roleRefusal(role: StaffRole, needed: StaffRole = 'owner'): string | undefined {
  return mayAct(role, needed) ? undefined : `Your role (${role}) does not allow this: it needs ${needed}`
}

/**
 * A part of a change that only owners may make (`what` names it, in the 403's words): anyone else's
 * is refused. No member (`pnpm admin`, server code) passes.
 */
export function requireOwnerFor(staff: { role: StaffRole } | undefined, what: string): void {
  const refusal = staff && roleRefusal(staff.role, 'owner')
  if (refusal) throw new AppError('insufficient_role', `${refusal} (${what})`)
}
