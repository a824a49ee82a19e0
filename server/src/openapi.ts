import { OpenAPIGenerator, type OpenAPI } from '@orpc/openapi'
import { JSON_SCHEMA_REGISTRY, ZodToJsonSchemaConverter } from '@orpc/zod/zod4'
import { contract, ERROR_CODE_LIST, ERROR_CODE_TABLE } from '@photobooth/sdk/contract'
import {
  CONTACT_LIMITS,
  ContactSubmission,
  KioskEvent,
  GalleryEventSummary,
  Guest,
  Photo,
  SetSummary,
  TrackBeacon,
  TwilioInboundMessage,
  TwilioStatusCallback,
  PostmarkWebhook,
} from '@photobooth/sdk/schemas'
import { z } from 'zod'

import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, takesIdempotencyKey } from './modules/idempotency/index.js'
import { documentErrorCodes, documentRequestIds } from './openapi-error-codes.js'
import { documentErrorExamples } from './openapi-examples.js'
import { unsupportedMediaTypeBody } from './http/edge.js'

/** Better Auth's session cookie, under the prefix the service gives it (modules/staff/auth.ts). */
const STAFF_COOKIE = 'photobooth.session_token'

export type OpenApiDocument = Awaited<ReturnType<OpenAPIGenerator['generate']>>

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400':
    "Bad input: a schema failure in the validator's shape (`success: false`), or a message for the guest (`{ error }`). On booth routes also a malformed Authorization header. Retrying is pointless.",
  '401': 'Missing, unknown or revoked booth key: the plain text `Unauthorized`.',
  '404': 'No such resource, or not live yet: `{ error }`.',
  '403':
    'Staff: a role below the route\'s (`{ "error": "Your role (staff) does not allow this: it needs manager" }`), a member who has not yet changed the password they were invited with, or a change from an origin that is not trusted or names none: `{ error }`. Nothing changed.',
  '409':
    'A conflict, in `{ error }`: on booth routes, the session is already completed or cancelled, or was completed concurrently (re-read the queue); on staff routes, a slug that is taken, active sessions in the way, or a state that does not allow the action.',
  '413': 'Body over the contact form\'s 16 KB (counted on the raw bytes): `{ "error": "Message too long" }`.',
  '502': 'The mail provider refused the message.',
  '429':
    'Over the rate limit for this client IP: `{ "error": "Too many requests. Try again in a minute." }`. Wait a minute; there is no Retry-After header.',
  '422': 'Photo keys not in storage (`missing` lists exactly those), or uploads that are not JPEG images (`notJpeg`). Nothing was written.',
  '500': 'Server fault; nothing about it is disclosed. Retry with backoff.',
  '503':
    'A dependency is away: `{ "error": "The database is unavailable. Try again in a moment." }` or `{ "error": "Photo storage is unavailable. Try again in a moment." }`, with a `Retry-After` in seconds (the one answer that has one: a 429 does not). Or not configured on this deployment (photo storage, mail), or the contact page is unavailable (no Retry-After). Nothing was changed.',
}

/**
 * What JSON Schema cannot read from a zod refinement, stated for the document; the server checks
 * the zod schemas themselves, so these only describe what it already enforces.
 */
// A guest's email: an address, or blank ('' or only spaces, which counts as not given), checked after trimming.
JSON_SCHEMA_REGISTRY.add(Guest.shape.email.unwrap(), {
  anyOf: [
    { type: 'string', format: 'email', description: 'An email address (surrounding whitespace is trimmed first)' },
    { type: 'string', pattern: '^\\s*$', description: 'Blank: not given' },
  ],
})
// The contact form's fields: 1 to 24 of them (each value's 2,000 characters are in the record's value schema).
JSON_SCHEMA_REGISTRY.add(ContactSubmission.shape.fields, {
  ...z.globalRegistry.get(ContactSubmission.shape.fields),
  minProperties: 1,
  maxProperties: CONTACT_LIMITS.fields,
})

/** `code`: optional in the schema (the spec's bodies have none, and an older server sent none), sent on every error answer. */
const ErrorCodeSchema: OpenAPI.SchemaObject = {
  type: 'string',
  enum: [...ERROR_CODE_LIST],
  description: [
    'The stable code of the error (its status in brackets):',
    '',
    ...ERROR_CODE_LIST.map((code) => `- \`${code}\` (${ERROR_CODE_TABLE[code].status}): ${ERROR_CODE_TABLE[code].meaning}`),
  ].join('\n'),
}

const ErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  // Not `Error`: code generated from the document would shadow the language's own Error type.
  title: 'ErrorBody',
  description:
    "A domain error: one human-readable string, and its stable `code` (lower_snake, from one closed list, one status each) for a client to act on or translate. Never has `success`. Some errors add fields: `field` (a guest's field at registration, such as `guests.1.phone`), `missing` and `notJpeg` (completion's 422).",
  properties: {
    error: { type: 'string', description: 'The text: for the guest where the route says so; the spec fixes several word for word.' },
    code: ErrorCodeSchema,
    field: {
      type: 'string',
      description:
        "Registration only: the guest's field the error is about, as a path in the body (`guests.1.phone`; `guests.1` for a guest with neither contact).",
    },
  },
  required: ['error'],
  examples: [{ error: 'no such set', code: 'no_such_set' }],
}

/** One field error inside a `ValidationError`'s `error.message`. */
const ValidationIssueSchema: OpenAPI.SchemaObject = {
  type: 'object',
  properties: {
    code: {
      type: 'string',
      description: "The validator's issue code, such as `invalid_type`, `too_small`, `unrecognized_keys` or `custom`",
    },
    path: {
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      description: 'Where, relative to the body or the path parameters: property names and array indexes',
    },
    message: { type: 'string' },
  },
  required: ['code', 'path', 'message'],
}

const PhotoKeysErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  examples: [
    {
      error: 'Photo keys not in storage',
      code: 'photo_keys_missing',
      missing: ['sessions/Zt5oP1vC9sDk3MwE7aRgQh/f2LhN6cV0bXq8JyT4kWmSe.jpg'],
    },
  ],
  description: 'Completion refused because of the stored photos; nothing was written.',
  properties: {
    error: { type: 'string' },
    code: ErrorCodeSchema,
    missing: { type: 'array', items: { type: 'string' }, description: 'Keys with no object in storage' },
    notJpeg: { type: 'array', items: { type: 'string' }, description: 'Keys whose objects are not JPEG images' },
  },
  required: ['error'],
}

const ValidationErrorSchema: OpenAPI.SchemaObject = {
  type: 'object',
  title: 'ValidationError',
  description:
    "A schema validation failure in the validator's own shape, told from `ErrorBody` by its `success: false`, exactly the spec's shape (it carries no `code`; the SDK gives it `invalid_input`). `error.message` is a JSON-encoded array of issues, each with `code`, `path` (relative to the body or the path parameters) and `message`.",
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      properties: {
        name: { const: 'ZodError' },
        message: {
          type: 'string',
          description: 'A JSON document: the array of issues (`JSON.parse` it).',
          contentMediaType: 'application/json',
          // JSON Schema 2020-12's keyword, which OpenAPI 3.1 allows but the typings here do not know.
          contentSchema: { type: 'array', items: ValidationIssueSchema, minItems: 1 },
        } as OpenAPI.SchemaObject,
      },
      required: ['name', 'message'],
    },
  },
  required: ['success', 'error'],
  examples: [
    {
      success: false,
      error: {
        name: 'ZodError',
        message: JSON.stringify(
          [
            {
              origin: 'array',
              code: 'too_small',
              minimum: 1,
              inclusive: true,
              path: ['guests'],
              message: 'Too small: expected array to have >=1 items',
            },
          ],
          null,
          2,
        ),
      },
    },
  ],
}

/** A 400's two shapes: tell them apart by `success`, present (and false) only in `ValidationError`. */
const BAD_REQUEST_SCHEMA = {
  anyOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/ErrorBody' }],
}

/** The OpenAPI 3.1 document, generated from the contract alone: `pnpm generate` commits it. */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const generator = new OpenAPIGenerator({ schemaConverters: [new ZodToJsonSchemaConverter()] })
  const document = await generator.generate(contract, {
    info: {
      title: 'Photo Booth Service',
      version: '1.0.0',
      description: [
        "Kiosk registration, public galleries, the booth API and the operator's staff API of the photo booth service. Times are integers, milliseconds since the Unix epoch.",
        '',
        "Errors: JSON `{ error }` (`ErrorBody`) for most; schema validation failures in the validator's own shape (`ValidationError`, told apart by `success: false`); the plain text `Unauthorized` for a booth key that is missing, unknown or revoked; the plain text `Not Found` on the byte routes (photo download, zip); 422 `{ error, missing | notJpeg }` when completing a session. Each operation lists its statuses with their content types.",
        '',
        'Every `GET` route also answers `HEAD`, with the status and headers of the `GET` and no body; the public reads (kiosk context, galleries and their files, health probes) list theirs here. A route that is not in this document, and `OPTIONS` on any path, answers 404 `{ "error": "Not Found" }`; the one exception is a preflight of a public route (kiosk context and registration, galleries and their files, `/track`, `/contact`) from an origin the deployment lists in `CORS_ORIGINS`, answered 204 with the CORS headers.',
        '',
        "Every answer carries `X-Request-Id`: the request's own when it sent a UUID, else a new UUID. Quote it when reporting a problem.",
        '',
        'Each error answer lists the stable codes it may carry (`code`: an enum per route and status, described there), so that a client can tell them apart and narrow by route; `ErrorBody` holds the whole list.',
        '',
        "The photo uploads are not operations of this document: `POST /booth/sessions/{sessionId}/uploads` hands out presigned URLs of the photo storage, answered by the storage itself in XML as S3 answers (in development, this service's local bucket at `PUT /photos/<key>`, which a deployed instance answers 404), and the key in them holds slashes that no path template can carry. PUT each JPEG to its `url` with exactly its `headers`: a 403 `SignatureDoesNotMatch` is a Content-Type other than `image/jpeg`, a 412 `PreconditionFailed` a key that already holds a photo, a 400 `EntityTooLarge` a photo over 25 MB.",
        '',
        'An interactive reference of this document is served at `/docs`.',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // An instance's own copy (`GET /openapi.json`) names that instance's public URL instead.
    servers: [
      {
        url: '{baseUrl}',
        description: 'An instance of the service: `baseUrl` is its `PUBLIC_URL`, without a trailing slash',
        variables: { baseUrl: { default: 'http://localhost:3000' } },
      },
    ],
    tags: [
      { name: 'Kiosk', description: 'Registration at the booth; no credential, rate limited.' },
      { name: 'Gallery', description: 'Public galleries; no credential.' },
      { name: 'Booth', description: 'The device that takes the photos; a booth key as Bearer token.' },
      { name: 'Tracking', description: 'View and share counts from public pages; no credential, rate limited.' },
      { name: 'Contact', description: 'The website contact form; no credential, rate limited.' },
      {
        name: 'Staff sign-in',
        description: 'Staff sign in with email and password (Better Auth); the answer sets the session cookie. Sign-up is closed.',
      },
      {
        name: 'Operations',
        description: 'Health probes for a load balancer or an orchestrator; no credential, never rate limited, never cached.',
      },
      {
        name: 'Staff',
        description:
          "The operator's API: events, sets, booth keys, sessions and delivery, statistics, exports and staff members. A staff session cookie; changes need a trusted `Origin`.",
      },
      {
        name: 'Webhooks',
        description:
          "The providers' delivery receipts and opt-outs, called by Postmark and Twilio: basic credentials (Postmark) or Twilio's request signature.",
      },
    ],
    components: {
      schemas: { ErrorBody: ErrorSchema, ValidationError: ValidationErrorSchema, PhotoKeysError: PhotoKeysErrorSchema },
      securitySchemes: {
        boothKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pbk_<id>_<secret>',
          description:
            'A booth key, created with `pnpm admin booth-key create --name "<booth>"` or `POST /staff/booth-keys`, and shown once.',
        },
        staffSession: {
          type: 'apiKey',
          in: 'cookie',
          name: STAFF_COOKIE,
          description: `The session cookie set by \`POST /api/auth/sign-in/email\` (\`__Secure-${STAFF_COOKIE}\` in production). State-changing staff requests must also send a trusted \`Origin\`.`,
        },
        postmarkWebhook: {
          type: 'http',
          scheme: 'basic',
          description: '`POSTMARK_WEBHOOK_USER` and `POSTMARK_WEBHOOK_PASSWORD`, given to Postmark in the webhook URL.',
        },
        twilioSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Twilio-Signature',
          description: "Twilio's HMAC-SHA1 of the URL and form fields, keyed with `TWILIO_AUTH_TOKEN`.",
        },
      },
    },
    commonSchemas: {
      // The kiosk context's event: the summary with what registering needs (its phones' country, listing, notice).
      Event: { schema: KioskEvent },
      GalleryEvent: { schema: GalleryEventSummary },
      Set: { schema: SetSummary },
      Photo: { schema: Photo, strategy: 'output' },
      Guest: { schema: Guest },
      TrackBeacon: { schema: TrackBeacon },
      ContactSubmission: { schema: ContactSubmission },
      PostmarkWebhook: { schema: PostmarkWebhook },
      TwilioStatusCallback: { schema: TwilioStatusCallback },
      TwilioInboundMessage: { schema: TwilioInboundMessage },
    },
    customErrorResponseBodySchema: (definedErrors, status) => {
      if (status === 400) return BAD_REQUEST_SCHEMA
      // Only completion's 422 lists photo keys; any other route's (a reused Idempotency-Key) is `{ error }`.
      const photoKeys = definedErrors.some(([, message]) => /^Photo keys/.test(message))
      if (status === 422 && photoKeys)
        return { anyOf: [{ $ref: '#/components/schemas/PhotoKeysError' }, { $ref: '#/components/schemas/ErrorBody' }] }
      return { $ref: '#/components/schemas/ErrorBody' }
    },
  })
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(pathItem ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue
      const isBooth = path.startsWith('/booth/')
      const isStaff = path.startsWith('/staff/') || path === '/api/auth/sign-out' || path === '/api/auth/change-password'
      // The public routes need no credential: say so explicitly rather than leave it undefined. The
      // webhooks declare their providers' own.
      if (!path.startsWith('/webhooks/')) operation.security = isBooth ? [{ boothKey: [] }] : isStaff ? [{ staffSession: [] }] : []
      // Better Auth answers its own refusals, shaped `{ error }` by its adapter: never the validator's shape.
      if (path.startsWith('/api/auth/') && operation.responses?.['400']) {
        operation.responses['400'] = {
          description: 'A missing or malformed field, or a wrong current password: `{ error }`.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        }
      }
      if (isStaff && operation.responses?.['401']) {
        operation.responses['401'] = {
          description:
            'No staff session: none sent, expired, signed out, of a removed member, or tampered with (a booth key does not count). `{ error }` in JSON.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        }
      }
      // Bearer failures are answered in plain text before the API is reached.
      if (isBooth && operation.responses) {
        operation.responses['401'] = {
          description: ERROR_DESCRIPTIONS['401']!,
          content: { 'text/plain': { schema: { type: 'string', enum: ['Unauthorized'] } } },
        }
      }
      documentMediaTypes(operation, method)
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const description = ERROR_DESCRIPTIONS[status]
        // Only the generator's placeholder ("404") is replaced; a route's own spec keeps its words.
        if (description && response && 'description' in response && response.description === status) response.description = description
      }
    }
  }
  documentIdempotencyKeys(document)
  documentErrorExamples(document)
  documentErrorCodes(document, [...Object.values(ERROR_DESCRIPTIONS), ...Object.values(KEY_ERRORS)])
  documentGalleryValidators(document)
  documentRetryAfter(document)
  documentHeadRequests(document)
  documentRequestIds(document)
  return document
}

/** The reads whose `HEAD` the document lists: every `GET` answers one, and these are the ones a link checker or a download manager sends. */
const isPublicRead = (path: string, operation: OpenAPI.OperationObject) =>
  operation.security?.length === 0 && !path.startsWith('/api/auth/')

/**
 * A `HEAD` operation beside each public `GET`: Express answers it with the `GET`'s status and
 * headers and no body (the byte routes read no file and count no download). Without one, a
 * validating proxy refuses a HEAD the service answers. Last, so it copies the `GET` as documented.
 */
function documentHeadRequests(document: OpenApiDocument): void {
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    const read = pathItem?.get
    if (!pathItem || !read?.operationId || !isPublicRead(path, read)) continue
    const responses: NonNullable<typeof read.responses> = {}
    for (const [status, response] of Object.entries(read.responses ?? {})) {
      responses[status] =
        !response || '$ref' in response
          ? response
          : { description: response.description, ...(response.headers ? { headers: response.headers } : {}) }
    }
    pathItem.head = {
      operationId: `${read.operationId}Head`,
      summary: `The status and headers of \`GET ${path}\`, without the body`,
      tags: read.tags,
      parameters: read.parameters,
      security: read.security,
      responses,
    }
  }
}

/**
 * The 415 of every change whose body is not text (http/edge.ts): a body of another media type, or a
 * body without one, is refused before anything reads it.
 */
function documentMediaTypes(operation: OpenAPI.OperationObject, method: string): void {
  if (method === 'get' || !operation.responses) return
  const declared = Object.keys((operation.requestBody as OpenAPI.RequestBodyObject | undefined)?.content ?? {})
  if (declared.includes('text/plain')) return
  const types = declared.length > 0 ? declared : ['application/json']
  operation.responses['415'] = {
    description: `The body is not ${types.map((type) => `\`${type}\``).join(' or ')} (a form post from another site, say), or has no Content-Type: \`{ "error": "Unsupported Media Type: send ${types.join(' or ')}" }\`. Nothing changed.`,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorBody' },
        example: unsupportedMediaTypeBody(types),
      },
    },
  }
}

/** Every 503 may be an outage (outages.ts): it then carries `Retry-After`. */
function documentRetryAfter(document: OpenApiDocument): void {
  const components = (document.components ??= {})
  components.headers = {
    ...components.headers,
    RetryAfter: {
      description: 'Present when the database or photo storage is away: seconds to wait before trying again.',
      schema: { type: 'integer', minimum: 1, example: 5 },
    },
  }
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue
      const unavailable = operation.responses?.['503']
      if (unavailable && !('$ref' in unavailable))
        unavailable.headers = { ...unavailable.headers, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }
    }
  }
}

/**
 * The two gallery reads' validators (modules/gallery/gallery-versions.ts): `ETag` and `Cache-Control`
 * on the 200, `If-None-Match` answered 304 without a body.
 */
function documentGalleryValidators(document: OpenApiDocument): void {
  const components = (document.components ??= {})
  components.headers = {
    ...components.headers,
    ETag: {
      description: 'A weak validator of this answer: send it back in `If-None-Match` to get a 304 while the gallery is unchanged.',
      schema: { type: 'string', example: 'W/"3q2-7wEjrq4LMcgWj5jZQxl4Bdh1ufDJwxv"' },
    },
    CacheControl: {
      description:
        'Fresh for a minute, then usable stale for ten while revalidated: what a CDN in front may do. While photos’ copies are being made (seconds after a completion), `no-cache`: a page waiting for them asks again, answered by a 304 until they change.',
      schema: { type: 'string', enum: ['public, max-age=60, stale-while-revalidate=600', 'no-cache'] },
    },
  }
  for (const path of ['/gallery/{sessionId}', '/gallery/events/{slug}']) {
    const operation = document.paths?.[path]?.get
    if (!operation?.responses) continue
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'The `ETag` of a copy already held: 304 while it is still current (`*` matches any current version).',
        schema: { type: 'string' },
      },
    ]
    const ok = operation.responses['200']
    if (ok && !('$ref' in ok))
      ok.headers = {
        ...ok.headers,
        ETag: { $ref: '#/components/headers/ETag' },
        'Cache-Control': { $ref: '#/components/headers/CacheControl' },
      }
    operation.responses['304'] = {
      description: 'Not modified: the copy named in `If-None-Match` is current. No body.',
      headers: { ETag: { $ref: '#/components/headers/ETag' }, 'Cache-Control': { $ref: '#/components/headers/CacheControl' } },
    }
  }
}

/** The answers of an `Idempotency-Key` itself, on a route that has none of that status of its own. */
const KEY_ERRORS: Record<string, string> = {
  '409': 'A request with this `Idempotency-Key` is still running (after waiting 10 s for it): retry later with the same key.',
  '422': 'This `Idempotency-Key` was already used for a request to another route or with another body: nothing was done.',
  '410':
    "A retry with this `Idempotency-Key` of a request whose session was deleted since (by staff, the retention purge or a guest's erasure): nothing was made again.",
}

/**
 * `Idempotency-Key` (modules/idempotency): the optional header on every change of the kiosk, the booth
 * and staff, the `Idempotent-Replayed` header of a replayed answer, and the 422 (the key was used for
 * another request), 409 (its first request is still running) and 410 (the session its answer named
 * was deleted since) it can answer.
 */
function documentIdempotencyKeys(document: OpenApiDocument): void {
  const components = (document.components ??= {})
  components.parameters = {
    ...components.parameters,
    IdempotencyKey: {
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description:
        "Makes a retry safe: the first answer (below 500) to a request with this key is stored for 24 hours and replayed, with `Idempotent-Replayed: true`, to every retry of the same request with the same key; the action is taken once. Keys are per caller (booth key, staff member); a kiosk's are per route and set, whatever its client IP, and must be unguessable (16 characters or more, 8 distinct: a UUID), else 400. The same key with another route or body answers 422; a retry while the first is still running waits up to 10 s for its answer, then answers 409. Without the header, the route behaves as documented.",
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      example: '4f9c7a2e-2b1d-4c1e-9d7a-0b8e6f1c2d3a',
    },
  }
  components.headers = {
    ...components.headers,
    IdempotentReplayed: {
      description: 'Present (`true`) when this is the stored answer to an earlier request with the same `Idempotency-Key`.',
      schema: { type: 'string', enum: ['true'] },
    },
  }
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(pathItem ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation) || !takesIdempotencyKey(method, path)) continue
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }]
      const responses = (operation.responses ??= {})
      for (const [status, description] of Object.entries(KEY_ERRORS)) {
        const existing = responses[status]
        // A route's own 409 or 422 (completion's PhotoKeysError has `error` too) keeps its schema and says both.
        if (existing && 'description' in existing) existing.description = `${existing.description} Also: ${description}`
        else responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } }
      }
      const badRequest = responses['400']
      if (badRequest && 'description' in badRequest)
        badRequest.description = `${badRequest.description} Also an \`Idempotency-Key\` that is not 1 to 255 visible ASCII characters.`
      // Any stored answer can be replayed: the ones given before authentication (401, 403, 429) and 5xx never are.
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 500 || ['401', '403', '429'].includes(status) || !response || '$ref' in response) continue
        response.headers = { ...response.headers, [REPLAYED_HEADER]: { $ref: '#/components/headers/IdempotentReplayed' } }
      }
    }
  }
}
