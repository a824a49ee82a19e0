import type { AppContext } from '../../context.js'

type Result = Record<string, unknown>
const text = (value: unknown) => (typeof value === 'string' ? value : undefined)

/**
 * What the audit trail notes of a creation besides its path's ids: the new row's id and what matters
 * of it, by the contract's operation id (ids and roles, never names or addresses). A member made an
 * owner, or a key for every event, must be visible in the trail without reading other tables.
 */
const CREATIONS: Record<string, (result: Result) => Record<string, string | undefined>> = {
  createEvent: (event) => ({ eventId: text(event.id) }),
  createSet: (set) => ({ setId: text(set.id) }),
  inviteStaffMember: ({ member }) => ({ memberId: text((member as Result).id), role: text((member as Result).role) }),
  createBoothKey: (key) => ({
    keyId: text(key.id),
    scope: Array.isArray(key.eventIds) ? key.eventIds.join(',') : 'unscoped',
  }),
}

/**
 * An oRPC interceptor: after a staff creation succeeds, its notes join the member's audit row
 * (`StaffCaller.auditNotes`, which `auditTrail` writes when the answer is sent).
 */
export async function noteCreations({
  next,
  context,
  procedure,
}: {
  next: () => Promise<unknown>
  context: Pick<AppContext, 'staff'>
  procedure: { '~orpc': { route: { operationId?: string } } }
}): Promise<unknown> {
  const result = await next()
  const notes = CREATIONS[procedure['~orpc'].route.operationId ?? '']
  if (notes && context.staff && result !== null && typeof result === 'object') {
    const defined = Object.entries(notes(result as Result)).filter((entry): entry is [string, string] => entry[1] !== undefined)
    context.staff.auditNotes = { ...context.staff.auditNotes, ...Object.fromEntries(defined) }
  }
  return result
}
