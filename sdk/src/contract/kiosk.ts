import { z } from 'zod'

import { KioskEvent, SetSummary } from '../schemas/event.js'
import { EXAMPLE_EVENT, EXAMPLE_IDS, EXAMPLE_SET } from '../schemas/examples.js'
import { CreatedSession, RegisterGuestsBody } from '../schemas/session.js'
import { badRequestOf, base, idempotencyErrors, notFoundOf, pathKey, rateLimited, withCodes } from './base.js'

const tags = ['Kiosk']

export const kiosk = {
  getContext: base
    .route({
      method: 'GET',
      path: '/events/{eventSlug}/sets/{setSlug}',
      operationId: 'getKioskContext',
      summary: "Load a kiosk's set and event from their slugs",
      description: 'Answers 404 `{ "error": "no such set" }` when either slug names nothing.',
      tags,
    })
    .errors(notFoundOf('no_such_set'))
    .input(z.object({ eventSlug: pathKey('summer-gala'), setSlug: pathKey('photo-wall') }))
    .output(
      z
        .object({ set: SetSummary, event: KioskEvent })
        .meta({ examples: [{ set: EXAMPLE_SET, event: { ...EXAMPLE_EVENT, phoneCountry: 'US', listGuestsByDefault: true } }] }),
    ),

  registerGuests: base
    .route({
      method: 'POST',
      path: '/sets/{setId}/sessions',
      operationId: 'registerGuests',
      summary: 'Register 1 to 12 guests, creating the active session the booth picks up',
      description: [
        "Each guest needs an email or a phone; phones are normalised to E.164, read as from the event's country (`phoneCountry` of the kiosk context, US by default) when typed without a country code.",
        "Optional consent per guest: `marketingOptIn` (default false) and `hideFromEventPage` (default: the event's `listGuestsByDefault`); each guest is recorded with the privacy-notice version they registered under.",
        'Guest-facing 400 messages: "This doesn\'t look like a phone number: <input>" and',
        '"<name> needs an email or a phone number". Rate limited to 60 per minute per client IP.',
      ].join(' '),
      tags,
      successStatus: 201,
      successDescription: 'The session was created and is waiting for the booth',
      inputStructure: 'detailed',
    })
    .meta({ rateLimit: { bucket: 'register', perMinute: 60 } })
    .errors({
      ...badRequestOf('invalid_phone', 'missing_contact', 'unknown_privacy_notice'),
      ...notFoundOf('no_such_set'),
      ...rateLimited,
      ...idempotencyErrors,
      // Two registrations of the same contact details at once: the second is asked to try again.
      CONFLICT: withCodes(idempotencyErrors.CONFLICT, 'concurrent_change'),
    })
    .input(z.object({ params: z.object({ setId: pathKey(EXAMPLE_IDS.set) }), body: RegisterGuestsBody }))
    .output(CreatedSession),
}
