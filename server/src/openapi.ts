import { OpenAPIGenerator, type OpenAPI } from '@orpc/openapi'
import { ZodToJsonSchemaConverter } from '@orpc/zod/zod4'
import { contract } from '@photobooth/sdk/contract'
import { EventSummary, GalleryEventSummary, Guest, Photo, SetSummary } from '@photobooth/sdk/schemas'

export type OpenApiDocument = Awaited<ReturnType<OpenAPIGenerator['generate']>>

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Bad input: a schema failure in the validator\'s shape (`success: false`), or a message for the guest (`{ error }`). Retrying is pointless.',
  '404': 'No such resource, or not live yet: `{ error }`.',
  '500': 'Server fault; nothing about it is disclosed. Retry with backoff.',
}

const ErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  description: 'A domain error: one human-readable string.',
  properties: { error: { type: 'string' } },
  required: ['error'],
}

const ValidationErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  description:
    "A schema validation failure in the validator's own shape. `error.message` is a JSON-encoded array of issues, each with `code`, `path` (relative to the body or the path parameters) and `message`.",
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      properties: {
        name: { const: 'ZodError' },
        message: { type: 'string', contentMediaType: 'application/json' },
      },
      required: ['name', 'message'],
    },
  },
  required: ['success', 'error'],
}

/** The OpenAPI 3.1 document, generated from the contract alone: `pnpm generate` commits it. */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const generator = new OpenAPIGenerator({ schemaConverters: [new ZodToJsonSchemaConverter()] })
  const document = await generator.generate(contract, {
    info: {
      title: 'Photo Booth Service',
      version: '1.0.0',
      description:
        'Kiosk registration and public galleries of the photo booth service. Times are integers, milliseconds since the Unix epoch. Every error answers `{ error }`, except schema failures, which answer in the validator\'s own shape.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the instance that serves this document (it rewrites this to its own public URL).
    servers: [{ url: '/', description: 'The instance serving this document' }],
    tags: [
      { name: 'Kiosk', description: 'Registration at the booth; no credential, rate limited.' },
      { name: 'Gallery', description: 'Public galleries; no credential.' },
    ],
    components: { schemas: { Error: ErrorSchema, ValidationError: ValidationErrorSchema } },
    commonSchemas: {
      Event: { schema: EventSummary },
      GalleryEvent: { schema: GalleryEventSummary },
      Set: { schema: SetSummary },
      Photo: { schema: Photo, strategy: 'output' },
      Guest: { schema: Guest },
    },
    customErrorResponseBodySchema: (_definedErrors, status) =>
      status === 400
        ? { oneOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/Error' }] }
        : { $ref: '#/components/schemas/Error' },
  })
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue
      // No credential on these routes: say so explicitly rather than leave it undefined.
      operation.security = []
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const description = ERROR_DESCRIPTIONS[status]
        if (description && response && 'description' in response) response.description = description
      }
    }
  }
  return document
}
