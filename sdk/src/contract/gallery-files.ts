import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { EXAMPLE_IDS } from '../schemas/examples.js'
import { base, pathKey, storageUnavailableOf } from './base.js'

const tags = ['Gallery']

/** A byte route's answer: the bytes with their headers. Its plain-text 404 is in the route's `spec`. */
const BytesAnswer = z.object({
  headers: z.record(z.string(), z.string()),
  body: z.custom<ReadableStream<Uint8Array>>((value) => value instanceof ReadableStream),
})

/** The service's `{ error, code }`, as every route's (the document's `ErrorBody`, server/src/openapi.ts). */
const ERROR_JSON: OpenAPI.ResponseObject['content'] = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } }

const TOO_MANY: OpenAPI.ResponseObject = { description: 'Over 60 requests a minute from this client IP.', content: ERROR_JSON }

const STORAGE_MISSING: OpenAPI.ResponseObject = {
  description:
    'The gallery may be live, but its photos cannot be read now: photo storage or the database is away (with a `Retry-After`), or this instance has no photo storage configured (`photo storage is not configured`).',
  content: ERROR_JSON,
}

const PLAIN_NOT_FOUND: OpenAPI.ResponseObject = {
  description: 'Not live, or not in this gallery: the plain text `Not Found`.',
  content: { 'text/plain': { schema: { type: 'string', enum: ['Not Found'] } } },
}

function bytesSpec(mediaType: string, description: string, limited = false) {
  return (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
    ...operation,
    responses: {
      '200': {
        description,
        headers: {
          'Content-Disposition': { description: 'attachment, with the file name (RFC 6266)', schema: { type: 'string' } },
          'Content-Length': { description: 'The exact size of the body', schema: { type: 'integer' } },
        },
        content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
      },
      '404': PLAIN_NOT_FOUND,
      ...(limited ? { '429': operation.responses?.['429'] ?? TOO_MANY } : {}),
      '500': {
        description:
          'Server fault, such as a stored photo that changed since completion: `{ "error": "Internal server error" }`. Retry with backoff.',
        content: ERROR_JSON,
      },
      '503': STORAGE_MISSING,
    },
  })
}

/** Storage is read for the bytes: not configured on this deployment, or away. */
const storageErrors = storageUnavailableOf('storage_not_configured', 'storage_unavailable')

/**
 * The gallery's files. Express answers them itself, streaming from storage (server/src/app.ts), so
 * no procedure implements them; the OpenAPI document and the SDK describe them like any route.
 */
export const galleryFiles = {
  downloadPhoto: base
    .route({
      method: 'GET',
      path: '/gallery/{sessionId}/photos/{photoId}/download',
      operationId: 'downloadPhoto',
      summary: 'One photo as a file: `<label> <n>.jpg`; counted as a download',
      tags,
      outputStructure: 'detailed',
      spec: bytesSpec('image/jpeg', 'The JPEG bytes, streamed from storage'),
    })
    .errors(storageErrors)
    .input(z.object({ sessionId: pathKey(EXAMPLE_IDS.session), photoId: pathKey(EXAMPLE_IDS.photo) }))
    .output(BytesAnswer),

  downloadZip: base
    .route({
      method: 'GET',
      path: '/gallery/{sessionId}/zip',
      operationId: 'downloadZip',
      summary: 'Every photo in one stored (uncompressed) zip, streamed while it is built; counted as a zip',
      description:
        'Entries are `<label> <n>.jpg` in gallery order; the file is `<label>.zip`. Rate limited to 60 per minute per client IP.',
      tags,
      outputStructure: 'detailed',
      spec: bytesSpec('application/zip', 'The zip, streamed; its exact length is announced', true),
    })
    .meta({ rateLimit: { bucket: 'zip', perMinute: 60 } })
    .errors(storageErrors)
    .input(z.object({ sessionId: pathKey(EXAMPLE_IDS.session) }))
    .output(BytesAnswer),
}
