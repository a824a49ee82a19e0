/**
 * What each role may do, as the contract declares it (each staff route's `meta({ role })`; the role
 * table of README.md): a control a member's role may not use is not shown. The service still refuses
 * it (403 `insufficient_role`) whatever the page shows; test/browser/console-roles.test.ts checks
 * that this table is the contract's, route by route, and holds every staff route the console uses.
 */
import type { StaffClient } from '@photobooth/sdk/staff'

/** A member's role, as `GET /staff/me` answers it. Read from the SDK alone: test/ imports this file in Node. */
type Role = Awaited<ReturnType<StaffClient['staff']['members']['me']>>['role']

type Areas = Omit<StaffClient['staff'], 'auth'>
/** `events.create`, `people.erase`…: every staff route the client has. */
export type RoutePath = { [A in Extract<keyof Areas, string>]: `${A}.${Extract<keyof Areas[A], string>}` }[Extract<keyof Areas, string>]

export const LEAST_ROLE = {
  'events.list': 'staff',
  'events.get': 'staff',
  'events.create': 'manager',
  'events.update': 'manager',
  'events.delete': 'owner',
  'events.stats': 'staff',
  'events.exportGuests': 'manager',
  'sets.create': 'manager',
  'sets.update': 'manager',
  'sets.delete': 'owner',
  'boothKeys.list': 'manager',
  'boothKeys.create': 'manager',
  'boothKeys.revoke': 'manager',
  'sessions.list': 'staff',
  'sessions.get': 'staff',
  'sessions.guestContact': 'staff',
  'sessions.stats': 'staff',
  'sessions.resend': 'staff',
  'sessions.cancel': 'staff',
  'sessions.delete': 'owner',
  'messages.retry': 'staff',
  'messages.retrySession': 'staff',
  'messages.retryEvent': 'staff',
  'messages.findSuppressions': 'staff',
  'messages.liftSuppression': 'manager',
  'members.me': 'staff',
  'members.list': 'owner',
  'members.invite': 'owner',
  'members.remove': 'owner',
  'members.getTeam': 'owner',
  'members.updateTeam': 'owner',
  'members.setRole': 'owner',
  'people.find': 'owner',
  'people.export': 'owner',
  'people.erase': 'owner',
  'audit.list': 'owner',
} as const satisfies Partial<Record<RoutePath, Role>>

/**
 * Changes that need more than their route's role, checked by the service on the body: an event's
 * retention (and a later start once it holds guests), a booth key for every event.
 */
export const OWNER_ONLY_FIELDS = { retention: 'owner', unscopedBoothKey: 'owner' } as const satisfies Record<string, Role>

const ORDER: readonly Role[] = ['owner', 'manager', 'staff']

/** Whether a member of `role` may use what needs `needed`: each role may all that the ones after it may. */
export function mayAct(role: Role, needed: Role): boolean {
  return ORDER.indexOf(role) <= ORDER.indexOf(needed)
}

/** A staff route the console uses. */
export type ConsoleRoute = keyof typeof LEAST_ROLE

export const may = (role: Role, route: ConsoleRoute): boolean => mayAct(role, LEAST_ROLE[route])
