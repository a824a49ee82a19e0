import { createStaffMember, getStaffMember, listStaffMembers, oneTimePassword, removeStaffMember, setStaffRole } from './members.service.js'
import { getTeamSettings, staffApi, updateTeamSettings } from '../staff/index.js'

const members = staffApi.members

export const staffMembersRouter = {
  me: members.me.handler(({ context }) => getStaffMember(context, context.staff.memberId)),
  list: members.list.handler(async ({ context }) => ({ members: await listStaffMembers(context) })),
  invite: members.invite.handler(async ({ input, context }) => {
    const password = input.body.password ?? oneTimePassword()
    // Whoever invites chose the password (or it was made for them to hand over): the member changes it first.
    const member = await createStaffMember(context, {
      email: input.body.email,
      name: input.body.name,
      password,
      role: input.body.role,
      mustChangePassword: true,
    })
    return input.body.password ? { member } : { member, password }
  }),
  remove: members.remove.handler(async ({ input, context }) => {
    await removeStaffMember(context, input.params.memberId)
    return { removed: input.params.memberId }
  }),
  getTeam: members.getTeam.handler(({ context }) => getTeamSettings(context.em)),
  updateTeam: members.updateTeam.handler(({ input, context }) => updateTeamSettings(context, input.body)),
  setRole: members.setRole.handler(({ input, context }) =>
    setStaffRole(context, { memberId: input.params.memberId, role: input.body.role }),
  ),
}
