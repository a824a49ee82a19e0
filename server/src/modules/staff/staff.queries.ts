import { z } from 'zod'

import { query } from '../../db/query.js'

/** A member by their sign-in address (case-insensitive), for the audit trail of a sign-in. Param: the address. */
export const MEMBER_BY_EMAIL = query(
  'staff.memberByEmail',
  'select id, role from staff_member where lower(email) = lower(?) limit 1',
  z.strictObject({ id: z.string(), role: z.string().nullable() }),
)

export type MemberRow = z.infer<typeof MEMBER_BY_EMAIL.row>
