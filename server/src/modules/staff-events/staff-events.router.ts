import { staffApi } from '../staff/index.js'
import { eventStats } from '../tracking/index.js'
import {
  createStaffEvent,
  createStaffSet,
  deleteStaffEvent,
  deleteStaffSet,
  getStaffEvent,
  listStaffEvents,
  updateStaffEvent,
  updateStaffSet,
} from './staff-events.service.js'

const events = staffApi.events
const sets = staffApi.sets

export const staffEventsRouter = {
  list: events.list.handler(({ context }) => listStaffEvents(context)),
  get: events.get.handler(({ input, context }) => getStaffEvent(context, input)),
  create: events.create.handler(({ input, context }) => createStaffEvent(context, input.body)),
  update: events.update.handler(({ input, context }) => updateStaffEvent(context, { eventId: input.params.eventId, changes: input.body })),
  delete: events.delete.handler(({ input, context }) =>
    deleteStaffEvent(context, { eventId: input.params.eventId, force: input.query.force === 'true' }),
  ),
  stats: events.stats.handler(({ input, context }) => eventStats(context, input)),
}

export const staffSetsRouter = {
  create: sets.create.handler(({ input, context }) => createStaffSet(context, { eventId: input.params.eventId, set: input.body })),
  update: sets.update.handler(({ input, context }) => updateStaffSet(context, { setId: input.params.setId, changes: input.body })),
  delete: sets.delete.handler(({ input, context }) =>
    deleteStaffSet(context, { setId: input.params.setId, force: input.query.force === 'true' }),
  ),
}
