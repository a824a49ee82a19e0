import { z } from 'zod'

import { EXAMPLE_IDS, EXAMPLE_STAFF_EVENT } from '../schemas/examples.js'
import { Deleted, EventChanges, EventStats, ForceQuery, NewEvent, NewSet, SetChanges, StaffEvent, StaffSet } from '../schemas/staff.js'
import { badRequestOf, conflictOf, notFoundOf, pathKey, staffChange, staffRead } from './base.js'

const tags = ['Staff']
const eventParams = z.object({ eventId: pathKey(EXAMPLE_IDS.event) })
const setParams = z.object({ setId: pathKey(EXAMPLE_IDS.set) })

export const staffEvents = {
  list: staffRead
    .route({
      method: 'GET',
      path: '/staff/events',
      operationId: 'listStaffEvents',
      summary: 'Every event with its sets and counts, newest start first',
      tags,
    })
    .meta({ role: 'staff' })
    .output(z.object({ events: z.array(StaffEvent) }).meta({ examples: [{ events: [EXAMPLE_STAFF_EVENT] }] })),

  get: staffRead
    .route({
      method: 'GET',
      path: '/staff/events/{eventId}',
      operationId: 'getStaffEvent',
      summary: 'One event with its sets and counts',
      tags,
    })
    .meta({ role: 'staff' })
    .errors(notFoundOf('no_such_event'))
    .input(eventParams)
    .output(StaffEvent),

  create: staffChange
    .route({
      method: 'POST',
      path: '/staff/events',
      operationId: 'createEvent',
      summary: 'Create an event',
      description: 'A slug that another event has answers 409.',
      tags,
      successStatus: 201,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .errors({ ...badRequestOf('unknown_phone_country', 'invalid_logo'), ...conflictOf('slug_taken') })
    .input(z.object({ body: NewEvent }))
    .output(StaffEvent),

  update: staffChange
    .route({
      method: 'PATCH',
      path: '/staff/events/{eventId}',
      operationId: 'updateEvent',
      summary: "Change an event's name, slug, start time or privacy",
      description: 'A slug that another event has answers 409. Changing the slug changes the kiosk URLs and the event page address.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .errors({ ...badRequestOf('unknown_phone_country', 'invalid_logo'), ...notFoundOf('no_such_event'), ...conflictOf('slug_taken') })
    .input(z.object({ params: eventParams, body: EventChanges }))
    .output(StaffEvent),

  delete: staffChange
    .route({
      method: 'DELETE',
      path: '/staff/events/{eventId}',
      operationId: 'deleteEvent',
      summary: 'Delete an event with its sets and sessions, its guests’ data and its photos in storage',
      description: 'While a session of the event is active this answers 409, unless `force=true`.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors({ ...notFoundOf('no_such_event'), ...conflictOf('active_sessions') })
    .input(z.object({ params: eventParams, query: ForceQuery }))
    .output(Deleted),

  stats: staffRead
    .route({
      method: 'GET',
      path: '/staff/events/{eventId}/stats',
      operationId: 'getEventStats',
      summary: "An event's numbers: views, shares by channel, downloads, zips, sessions, guests and messages, with an hourly series",
      tags,
    })
    .meta({ role: 'staff' })
    .errors(notFoundOf('no_such_event'))
    .input(eventParams)
    .output(EventStats),
}

export const staffSets = {
  create: staffChange
    .route({
      method: 'POST',
      path: '/staff/events/{eventId}/sets',
      operationId: 'createSet',
      summary: 'Add a set (a booth or station) to an event',
      description: 'A slug that another set of the event has answers 409.',
      tags,
      successStatus: 201,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .errors({ ...notFoundOf('no_such_event'), ...conflictOf('slug_taken') })
    .input(z.object({ params: eventParams, body: NewSet }))
    .output(StaffSet),

  update: staffChange
    .route({
      method: 'PATCH',
      path: '/staff/sets/{setId}',
      operationId: 'updateSet',
      summary: "Change a set's name or slug",
      description: 'A slug that another set of the event has answers 409.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'manager' })
    .errors({ ...notFoundOf('no_such_set'), ...conflictOf('slug_taken') })
    .input(z.object({ params: setParams, body: SetChanges }))
    .output(StaffSet),

  delete: staffChange
    .route({
      method: 'DELETE',
      path: '/staff/sets/{setId}',
      operationId: 'deleteSet',
      summary: 'Delete a set with its sessions, their guests’ data and their photos in storage',
      description: 'While a session of the set is active this answers 409, unless `force=true`.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors({ ...notFoundOf('no_such_set'), ...conflictOf('active_sessions') })
    .input(z.object({ params: setParams, query: ForceQuery }))
    .output(Deleted),
}
