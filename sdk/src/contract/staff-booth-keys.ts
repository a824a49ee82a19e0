import { z } from 'zod'

import { EXAMPLE_BOOTH_KEY, EXAMPLE_IDS } from '../schemas/examples.js'
import { CreatedBoothKey, NewBoothKey, StaffBoothKey } from '../schemas/staff.js'
import { badRequestOf, notFoundOf, pathKey, staffChange, staffRead, staffWrite } from './base.js'

const tags = ['Staff']

export const staffBoothKeys = {
  list: staffRead
    .route({
      method: 'GET',
      path: '/staff/booth-keys',
      operationId: 'listBoothKeys',
      summary: 'Every booth key, oldest first, with its last use; never a secret',
      tags,
    })
    .meta({ role: 'manager' })
    .output(z.object({ keys: z.array(StaffBoothKey) }).meta({ examples: [{ keys: [EXAMPLE_BOOTH_KEY] }] })),

  create: staffWrite
    .route({
      method: 'POST',
      path: '/staff/booth-keys',
      operationId: 'createBoothKey',
      summary: 'Create a booth key; the whole key is in this answer and never again',
      description:
        'With `eventIds`, the key works only for those events (404 `{ "error": "no such event" }` when one does not exist); without, for every event, which only an owner may create (403 otherwise).',
      tags,
      successStatus: 201,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .meta({ secretAnswer: true })
    .errors({ ...badRequestOf('invalid_name'), ...notFoundOf('no_such_event') })
    .input(z.object({ body: NewBoothKey }))
    .output(CreatedBoothKey),

  revoke: staffChange
    .route({
      method: 'POST',
      path: '/staff/booth-keys/{keyId}/revoke',
      operationId: 'revokeBoothKey',
      summary: 'Revoke a booth key at once; revoking it again changes nothing',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .errors(notFoundOf('no_such_booth_key'))
    .input(z.object({ params: z.object({ keyId: pathKey(EXAMPLE_IDS.boothKey) }) }))
    .output(StaffBoothKey),
}
