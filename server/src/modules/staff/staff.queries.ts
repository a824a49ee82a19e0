/** A member by their sign-in address (case-insensitive), for the audit trail of a sign-in. Param: the address. */
export const MEMBER_BY_EMAIL = 'select id, role from staff_member where lower(email) = lower(?) limit 1'

export type MemberRow = { id: string; role: string | null }
