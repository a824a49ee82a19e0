import { staffApi } from '../staff/index.js'
import { createStaffBoothKey, listStaffBoothKeys, revokeStaffBoothKey } from './booth-keys.service.js'

const keys = staffApi.boothKeys

export const staffBoothKeysRouter = {
  list: keys.list.handler(({ context }) => listStaffBoothKeys(context)),
  create: keys.create.handler(({ input, context }) => createStaffBoothKey(context, input.body)),
  revoke: keys.revoke.handler(({ input, context }) => revokeStaffBoothKey(context, input.params)),
}
