import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { CONTACT_LIMITS } from '../schemas/contact.js'
import { AnyBody, badRequestOf, base, ErrorRef, rateLimited, withCodes } from './base.js'

export const contact = {
  submit: base
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
    .meta({
      rateLimit: { bucket: 'contact', perMinute: 60 },
      textBody: {
        maxBytes: CONTACT_LIMITS.bodyBytes,
        tooLarge: { status: 413, error: 'Message too long', code: 'payload_too_large' },
        notText: { error: 'Invalid submission', code: 'invalid_submission' },
      },
    })
    .errors({
      ...badRequestOf('unknown_fields'),
      ...rateLimited,
      PAYLOAD_TOO_LARGE: { status: 413, message: 'Message too long' },
      BAD_GATEWAY: withCodes({ status: 502, message: 'The mail provider refused the message' }, 'mail_refused'),
      SERVICE_UNAVAILABLE: withCodes(
        { status: 503, message: 'Mail or the contact page is not available' },
        'mail_not_configured',
        'contact_form_unavailable',
      ),
    })
    .input(AnyBody)
    .output(z.object({ ok: z.literal(true) }).meta({ examples: [{ ok: true }] })),
}
