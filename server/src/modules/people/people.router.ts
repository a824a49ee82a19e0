import { staffApi } from '../staff/index.js'
import { erasePerson, exportPerson, findPeople } from './people.service.js'

const people = staffApi.people

export const staffPeopleRouter = {
  find: people.find.handler(({ input, context }) => findPeople(context, input)),
  export: people.export.handler(({ input, context }) => exportPerson(context, input)),
  erase: people.erase.handler(({ input, context }) => erasePerson(context, input.params)),
}
