import { z } from 'zod'

import { EXAMPLE_PERSON, EXAMPLE_PERSON_EXPORT } from '../schemas/examples.js'
import { Erased, Person, PersonExport, PersonQuery } from '../schemas/staff.js'
import { badRequestOf, notFoundOf, pathKey, staffChange, staffRead } from './base.js'

const tags = ['Staff']
const personParams = z.object({ customerId: pathKey('cU5cNq1RZTaO2rUq9bS8fA') })

/** One person's rights (docs/guests-data.md): find them across events, hand them their data, erase them. */
export const staffPeople = {
  find: staffRead
    .route({
      method: 'GET',
      path: '/staff/people',
      operationId: 'findPeople',
      summary: 'Find a guest across every event by email or by phone',
      description:
        'Exactly one of `email` and `phone`. Answers the people found (none: an empty list), each with the events they registered at.',
      tags,
    })
    .meta({ role: 'owner' })
    .errors(badRequestOf('invalid_phone'))
    .input(PersonQuery)
    .output(z.object({ people: z.array(Person) }).meta({ examples: [{ people: [EXAMPLE_PERSON] }] })),

  export: staffRead
    .route({
      method: 'GET',
      path: '/staff/people/{customerId}/export',
      operationId: 'exportPerson',
      summary: "One person's data, machine-readable: their guest rows with consent, events, sessions, gallery links and messages",
      description: 'Nothing of any other guest but their sessions\' labels. Answers 404 `{ "error": "no such person" }` for an unknown id.',
      tags,
    })
    .meta({ role: 'owner' })
    .errors(notFoundOf('no_such_person'))
    .input(personParams)
    .output(PersonExport.meta({ examples: [EXAMPLE_PERSON_EXPORT] })),

  erase: staffChange
    .route({
      method: 'POST',
      path: '/staff/people/{customerId}/erase',
      operationId: 'erasePerson',
      summary:
        'Erase one person: their contact details, guest rows, messages and customer record; their sessions where they were the only guest',
      description:
        'A session they shared keeps its photos for the other guests, without this person (their name leaves the label). Their sessions\' photos are deleted from storage, and any stored answer naming those sessions is forgotten. Answers 404 `{ "error": "no such person" }` for an unknown id, or one already erased.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors(notFoundOf('no_such_person'))
    .input(z.object({ params: personParams }))
    .output(Erased),
}
