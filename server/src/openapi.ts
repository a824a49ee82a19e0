import { OpenAPIGenerator, type OpenAPI } from '@orpc/openapi'
import { ZodToJsonSchemaConverter } from '@orpc/zod/zod4'
import { contract } from '@photobooth/sdk/contract'
import { ContactSubmission, EventSummary, GalleryEventSummary, Guest, Photo, SetSummary, TrackBeacon } from '@photobooth/sdk/schemas'

/** Better Auth's session cookie, under the prefix the service gives it (modules/staff/auth.ts). */
const STAFF_COOKIE = 'photobooth.session_token'

export type OpenApiDocument = Awaited<ReturnType<OpenAPIGenerator['generate']>>

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Bad input: a schema failure in the validator\'s shape (`success: false`), or a message for the guest (`{ error }`). On booth routes also a malformed Authorization header. Retrying is pointless.',
  '401': 'Missing, unknown or revoked booth key: the plain text `Unauthorized`.',
  '404': 'No such resource, or not live yet: `{ error }`.',
  '403': 'A staff change from an origin that is not trusted, or with no `Origin` (or `Referer`) at all: `{ error }`. Nothing changed.',
  '409': 'A conflict, in `{ error }`: on booth routes, the session is already completed or cancelled, or was completed concurrently (re-read the queue); on staff routes, a slug that is taken, active sessions in the way, or a state that does not allow the action.',
  '413': 'Body over the contact form\'s 16 KB (counted on the raw bytes): `{ "error": "Message too long" }`.',
  '502': 'The mail provider refused the message.',
  '429': 'Over the rate limit for this client IP: `{ "error": "Too many requests. Try again in a minute." }`. Wait a minute; there is no Retry-After header.',
  '422': 'Photo keys not in storage (`missing` lists exactly those), or uploads that are not JPEG images (`notJpeg`). Nothing was written.',
  '500': 'Server fault; nothing about it is disclosed. Retry with backoff.',
  '503': 'Not configured on this deployment (photo storage, mail), or the contact page is unavailable.',
}

const ErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  description: 'A domain error: one human-readable string.',
  properties: { error: { type: 'string' } },
  required: ['error'],
}

const PhotoKeysErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  description: 'Completion refused because of the stored photos; nothing was written.',
  properties: {
    error: { type: 'string' },
    missing: { type: 'array', items: { type: 'string' }, description: 'Keys with no object in storage' },
    notJpeg: { type: 'array', items: { type: 'string' }, description: 'Keys whose objects are not JPEG images' },
  },
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
        'Kiosk registration, public galleries, the booth API and the operator\'s staff API of the photo booth service. Times are integers, milliseconds since the Unix epoch. Every error answers `{ error }`, except schema failures, which answer in the validator\'s own shape.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the instance that serves this document (it rewrites this to its own public URL).
    servers: [{ url: '/', description: 'The instance serving this document' }],
    tags: [
      { name: 'Kiosk', description: 'Registration at the booth; no credential, rate limited.' },
      { name: 'Gallery', description: 'Public galleries; no credential.' },
      { name: 'Booth', description: 'The device that takes the photos; a booth key as Bearer token.' },
      { name: 'Tracking', description: 'View and share counts from public pages; no credential, rate limited.' },
      { name: 'Contact', description: 'The website contact form; no credential, rate limited.' },
      { name: 'Staff sign-in', description: 'Staff sign in with email and password (Better Auth); the answer sets the session cookie. Sign-up is closed.' },
      { name: 'Staff', description: "The operator's API: events, sets, booth keys, sessions and delivery, statistics, exports and staff members. A staff session cookie; changes need a trusted `Origin`." },
    ],
    components: {
      schemas: { Error: ErrorSchema, ValidationError: ValidationErrorSchema, PhotoKeysError: PhotoKeysErrorSchema },
      securitySchemes: {
        boothKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pbk_<id>_<secret>',
          description: 'A booth key, created with `pnpm admin booth-key create --name "<booth>"` or `POST /staff/booth-keys`, and shown once.',
        },
        staffSession: {
          type: 'apiKey',
          in: 'cookie',
          name: STAFF_COOKIE,
          description: `The session cookie set by \`POST /api/auth/sign-in/email\` (\`__Secure-${STAFF_COOKIE}\` in production). State-changing staff requests must also send a trusted \`Origin\`.`,
        },
      },
    },
    commonSchemas: {
      Event: { schema: EventSummary },
      GalleryEvent: { schema: GalleryEventSummary },
      Set: { schema: SetSummary },
      Photo: { schema: Photo, strategy: 'output' },
      Guest: { schema: Guest },
      TrackBeacon: { schema: TrackBeacon },
      ContactSubmission: { schema: ContactSubmission },
    },
    customErrorResponseBodySchema: (_definedErrors, status) => {
      if (status === 400) return { oneOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/Error' }] }
      if (status === 422) return { $ref: '#/components/schemas/PhotoKeysError' }
      return { $ref: '#/components/schemas/Error' }
    },
  })
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(pathItem ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue
      const isBooth = path.startsWith('/booth/')
      const isStaff = path.startsWith('/staff/') || path === '/api/auth/sign-out' || path === '/api/auth/change-password'
      // The public routes need no credential: say so explicitly rather than leave it undefined.
      operation.security = isBooth ? [{ boothKey: [] }] : isStaff ? [{ staffSession: [] }] : []
      // Better Auth answers its own refusals, shaped `{ error }` by its adapter: never the validator's shape.
      if (path.startsWith('/api/auth/') && operation.responses?.['400']) {
        operation.responses['400'] = {
          description: 'A missing or malformed field, or a wrong current password: `{ error }`.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        }
      }
      if (isStaff && operation.responses?.['401']) {
        operation.responses['401'] = {
          description: 'No staff session: none sent, expired, signed out, of a removed member, or tampered with (a booth key does not count). `{ error }` in JSON.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        }
      }
      // Bearer failures are answered in plain text before the API is reached.
      if (isBooth && operation.responses) {
        operation.responses['401'] = {
          description: ERROR_DESCRIPTIONS['401']!,
          content: { 'text/plain': { schema: { type: 'string', enum: ['Unauthorized'] } } },
        }
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const description = ERROR_DESCRIPTIONS[status]
        // Only the generator's placeholder ("404") is replaced; a route's own spec keeps its words.
        if (description && response && 'description' in response && response.description === status) response.description = description
      }
    }
  }
  return document
}
