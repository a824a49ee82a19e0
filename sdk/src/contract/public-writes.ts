import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { ContactSubmission, TrackBeacon } from '../schemas/public-writes.js'
import { base, rateLimited } from './base.js'

const ErrorRef = { $ref: '#/components/schemas/Error' }

/** The body is checked by the procedure, whose refusals are the spec's own words, not zod's shape. */
const AnyBody = z.object({ body: z.unknown() })

export const publicWrites = {
  track: base
    .route({
      method: 'POST',
      path: '/track',
      operationId: 'track',
      summary: 'Count a view or a share click',
      description:
        'The body is a JSON document, sent as `text/plain` (a page-close `navigator.sendBeacon` needs no preflight) or `application/json`. A view of a gallery counts only while the gallery is live; a view of an event page only for a public event. Nothing about the visitor is stored. Rate limited to 60 per minute per client IP.',
      tags: ['Tracking'],
      successStatus: 204,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        requestBody: {
          required: true,
          content: {
            'text/plain': { schema: { $ref: '#/components/schemas/TrackBeacon' } },
            'application/json': { schema: { $ref: '#/components/schemas/TrackBeacon' } },
          },
        },
        responses: {
          ...operation.responses,
          '204': { description: 'Counted' },
          '400': {
            description: '`{ "error": "bad body" }` for anything off the variants; `{ "error": "no such session or event" }` when the id names nothing countable.',
            content: { 'application/json': { schema: ErrorRef } },
          },
        },
      }),
    })
    .errors(rateLimited)
    .input(AnyBody)
    .output(z.void()),

  contact: base
    .route({
      method: 'POST',
      path: '/contact',
      operationId: 'contact',
      summary: 'Relay the website contact form by email',
      description:
        'Labels must be those of the published contact page. At most 24 fields, 2,000 characters per value, 16 KB in all. Rate limited to 60 per minute per client IP.',
      tags: ['Contact'],
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ContactSubmission' } } } },
        responses: {
          ...operation.responses,
          '400': {
            description: '`{ "error": "Unknown fields: <labels>" }` or `{ "error": "Invalid submission" }`.',
            content: { 'application/json': { schema: ErrorRef } },
          },
        },
      }),
    })
    .errors({
      ...rateLimited,
      PAYLOAD_TOO_LARGE: { status: 413, message: 'Message too long' },
      BAD_GATEWAY: { status: 502, message: 'The mail provider refused the message' },
      SERVICE_UNAVAILABLE: { status: 503, message: 'Mail or the contact page is not available' },
    })
    .input(AnyBody)
    .output(z.object({ ok: z.literal(true) })),
}

export { ContactSubmission, TrackBeacon }
