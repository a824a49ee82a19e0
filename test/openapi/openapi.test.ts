import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'

import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { ERROR_CODE_TABLE } from '@photobooth/sdk'
import { buildOpenApiDocument } from '@photobooth/server/openapi'
import { describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'

const app = withTestServer()

const OWN_WORDS = ['/track', '/contact']
const BYTE_ROUTES = ['/gallery/{sessionId}/photos/{photoId}/download', '/gallery/{sessionId}/zip']
const PROBES = ['/healthz', '/readyz']
const committedPath = resolve(import.meta.dirname, '../../openapi/openapi.json')

type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }

/** An error answer's schema under the route's own `code` enum (server/src/openapi-error-codes.ts): the shape it narrows. */
const shapeOf = (schema: unknown) => (schema as { allOf?: unknown[] } | undefined)?.allOf?.[0] ?? schema

/** The codes an error answer of this route may carry, as the document lists them. */
const codesOf = (schema: unknown) =>
  (schema as { allOf?: { properties?: { code?: { enum?: string[] } } }[] } | undefined)?.allOf?.[1]?.properties?.code?.enum

function operations(document: { paths: Record<string, Record<string, Operation>> }) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  )
}

describe('the OpenAPI document', () => {
  it('when generated from the contract, then it equals the committed openapi/openapi.json', async () => {
    const committed = JSON.parse(await readFile(committedPath, 'utf8'))
    expect(JSON.parse(JSON.stringify(await buildOpenApiDocument()))).toEqual(committed)
  })

  it('when served at /openapi.json, then it is the committed document pointing at this instance', async () => {
    const response = await fetch(`${app.url}/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const served = await response.json()
    const committed = JSON.parse(await readFile(committedPath, 'utf8'))
    expect(served).toEqual({ ...committed, servers: [{ url: app.config.publicUrl }] })
  })

  it('when validated by swagger-parser, then it is valid OpenAPI 3.1', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    expect(document.openapi).toMatch(/^3\.1\./)
    await expect(SwaggerParser.validate(document)).resolves.toBeTruthy()
  })

  it('when read, then it holds every spec route on its exact path and method', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    const routes = operations(document).map(({ method, path }) => `${method.toUpperCase()} ${path}`)
    expect(routes.sort()).toEqual(
      [
        'GET /events/{eventSlug}/sets/{setSlug}',
        'POST /sets/{setId}/sessions',
        'GET /gallery/events/{slug}',
        'GET /gallery/{sessionId}',
        'GET /gallery/{sessionId}/photos/{photoId}/download',
        'GET /gallery/{sessionId}/zip',
        'POST /track',
        'POST /contact',
        'GET /booth/events',
        'GET /booth/sets/{setId}/sessions',
        'POST /booth/sessions/{sessionId}/uploads',
        'POST /booth/sessions/{sessionId}/complete',
        'POST /booth/sessions/{sessionId}/cancel',
        'POST /booth/sets/{setId}/claims',
        'POST /booth/sessions/{sessionId}/claim',
        'POST /booth/sessions/{sessionId}/release',
        // Staff sign-in (Better Auth) and the operator's API.
        'POST /api/auth/sign-in/email',
        'POST /api/auth/sign-out',
        'POST /api/auth/change-password',
        'GET /api/auth/get-session',
        'GET /staff/me',
        'GET /staff/members',
        'POST /staff/members',
        'DELETE /staff/members/{memberId}',
        // Roles and the audit trail (issue 22).
        'PATCH /staff/members/{memberId}',
        'GET /staff/audit',
        'GET /staff/team',
        'PATCH /staff/team',
        'POST /api/auth/two-factor/enable',
        'POST /api/auth/two-factor/verify-totp',
        'POST /api/auth/two-factor/verify-backup-code',
        'POST /api/auth/two-factor/disable',
        'GET /staff/events',
        'POST /staff/events',
        'GET /staff/events/{eventId}',
        'PATCH /staff/events/{eventId}',
        'DELETE /staff/events/{eventId}',
        'GET /staff/events/{eventId}/stats',
        'GET /staff/events/{eventId}/guests.csv',
        'GET /staff/events/{eventId}/sessions',
        // Guests' contacts by role (issue 35).
        'GET /staff/guests/{guestId}/contact',
        'POST /staff/events/{eventId}/sets',
        'PATCH /staff/sets/{setId}',
        'DELETE /staff/sets/{setId}',
        'GET /staff/booth-keys',
        'POST /staff/booth-keys',
        'POST /staff/booth-keys/{keyId}/revoke',
        'GET /staff/sessions/{sessionId}',
        'GET /staff/sessions/{sessionId}/stats',
        'POST /staff/sessions/{sessionId}/resend',
        'POST /staff/sessions/{sessionId}/cancel',
        'DELETE /staff/sessions/{sessionId}',
        'POST /staff/messages/{messageId}/retry',
        // Bulk retry after a provider's outage (issue 25).
        'POST /staff/sessions/{sessionId}/messages/retry',
        'POST /staff/events/{eventId}/messages/retry',
        // One guest's rights (issue 21).
        'GET /staff/people',
        'GET /staff/people/{customerId}/export',
        'POST /staff/people/{customerId}/erase',
        // Delivery receipts and the suppression list (issue 21).
        'GET /staff/suppressions',
        'POST /staff/suppressions/lift',
        'POST /webhooks/postmark',
        'POST /webhooks/twilio/status',
        'POST /webhooks/twilio/inbound',
        // The health probes (issue 14).
        'GET /healthz',
        'GET /readyz',
        // The public reads' HEAD (issue 23): every GET answers one, these are listed.
        'HEAD /events/{eventSlug}/sets/{setSlug}',
        'HEAD /gallery/events/{slug}',
        'HEAD /gallery/{sessionId}',
        'HEAD /gallery/{sessionId}/photos/{photoId}/download',
        'HEAD /gallery/{sessionId}/zip',
        'HEAD /healthz',
        'HEAD /readyz',
      ].sort(),
    )
  })

  it('when read, then each listed HEAD is its GET without bodies: same parameters, credential and statuses, each with the same headers', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation & Record<string, unknown>>>)) {
      const { get, head } = item
      if (!head) continue
      expect(head.operationId, path).toBe(`${get!.operationId}Head`)
      expect([head.parameters, head.security], path).toEqual([get!.parameters, get!.security])
      expect(Object.keys(head.responses), path).toEqual(Object.keys(get!.responses))
      for (const [status, response] of Object.entries(head.responses)) {
        expect(response.content, `${path} ${status}`).toBeUndefined()
        expect((response as { headers?: unknown }).headers, `${path} ${status}`).toEqual(
          (get!.responses[status] as { headers?: unknown }).headers,
        )
      }
    }
  })

  it('when read, then booth routes require the bearer key and document the plain-text 401, staff routes the session cookie and a JSON 401, public routes none', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    expect(document.components.securitySchemes.boothKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(document.components.securitySchemes.staffSession).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'photobooth.session_token',
    })
    expect(document.components.securitySchemes.postmarkWebhook).toMatchObject({ type: 'http', scheme: 'basic' })
    expect(document.components.securitySchemes.twilioSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Twilio-Signature' })
    for (const { path, method, operation } of operations(document)) {
      const booth = path.startsWith('/booth/')
      const staff = path.startsWith('/staff/') || ['/api/auth/sign-out', '/api/auth/change-password'].includes(path)
      const webhook =
        path === '/webhooks/postmark' ? [{ postmarkWebhook: [] }] : path.startsWith('/webhooks/') ? [{ twilioSignature: [] }] : undefined
      expect((operation as unknown as { security: unknown }).security, path).toEqual(
        booth ? [{ boothKey: [] }] : staff ? [{ staffSession: [] }] : (webhook ?? []),
      )
      // A provider's callback without its credential or signature is refused, in JSON.
      if (webhook)
        expect(
          shapeOf(operation.responses[path === '/webhooks/postmark' ? '401' : '403']?.content?.['application/json']?.schema),
          path,
        ).toEqual({ $ref: '#/components/schemas/ErrorBody' })
      if (booth)
        expect(operation.responses['401']?.content).toEqual({
          'text/plain': { schema: { type: 'string', enum: ['Unauthorized'] }, example: 'Unauthorized' },
        })
      if (staff && path !== '/api/auth/sign-out') {
        const unauthorized = operation.responses['401']?.content?.['application/json'] as { schema: unknown; example: unknown }
        expect(shapeOf(unauthorized.schema), path).toEqual({ $ref: '#/components/schemas/ErrorBody' })
        expect(codesOf(unauthorized.schema), path).toEqual(['unauthorized'])
        expect(unauthorized.example, path).toEqual({ error: 'Staff sign-in required', code: 'unauthorized' })
      }
      // A staff change from an untrusted origin is refused.
      if (staff && method !== 'get') expect(Object.keys(operation.responses), `${method} ${path}`).toContain('403')
    }
    const complete = document.paths['/booth/sessions/{sessionId}/complete'].post
    // The photo keys' refusal, or a reused Idempotency-Key's `{ error }`; registration's 422 is only the latter.
    const registration = document.paths['/sets/{setId}/sessions'].post
    expect(shapeOf(complete.responses['422'].content['application/json'].schema)).toEqual({
      anyOf: [{ $ref: '#/components/schemas/PhotoKeysError' }, { $ref: '#/components/schemas/ErrorBody' }],
    })
    expect(codesOf(complete.responses['422'].content['application/json'].schema)).toEqual([
      'photo_keys_missing',
      'photos_not_jpeg',
      'idempotency_key_reused',
    ])
    expect(shapeOf(registration.responses['422'].content['application/json'].schema)).toEqual({ $ref: '#/components/schemas/ErrorBody' })
    // Registration's 422 is only a reused key's, and says so: no word of photo keys.
    expect(codesOf(registration.responses['422'].content['application/json'].schema)).toEqual(['idempotency_key_reused'])
    expect(registration.responses['422'].description).not.toMatch(/photo/i)
    expect(shapeOf(complete.responses['409'].content['application/json'].schema)).toEqual({ $ref: '#/components/schemas/ErrorBody' })
    expect(codesOf(complete.responses['409'].content['application/json'].schema)).toEqual(['session_not_active', 'idempotency_in_flight'])
  })

  it("when read, then every error answer has one example, which its schema accepts, and the spec's words are the examples of its routes", async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    const missing: string[] = []
    const invalid: string[] = []
    for (const { path, method, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue
        for (const [type, media] of Object.entries(response.content ?? {}) as [string, { schema: object; example?: unknown }][]) {
          const where = `${method.toUpperCase()} ${path} ${status} ${type}`
          if (media.example === undefined) missing.push(where)
          else if (!ajv.validate({ ...media.schema, components: document.components }, media.example)) invalid.push(where)
        }
      }
    }
    expect(missing).toEqual([])
    expect(invalid).toEqual([])
    const example = (path: string, method: string, status: string, type = 'application/json') =>
      document.paths[path][method].responses[status].content[type].example
    // Staff reads that take no input cannot fail the validator: their 400 is a request the HTTP layer could not read.
    for (const path of ['/staff/booth-keys', '/staff/events', '/staff/me', '/staff/members', '/staff/team'])
      expect(example(path, 'get', '400'), path).toEqual({ error: 'Malformed request', code: 'malformed_request' })
    expect(example('/events/{eventSlug}/sets/{setSlug}', 'get', '404')).toEqual({ error: 'no such set', code: 'no_such_set' })
    expect(example('/sets/{setId}/sessions', 'post', '404')).toEqual({ error: 'no such set', code: 'no_such_set' })
    expect(example('/gallery/events/{slug}', 'get', '404')).toEqual({ error: 'no such event', code: 'no_such_event' })
    expect(example('/gallery/{sessionId}', 'get', '404')).toEqual({ error: 'no such gallery', code: 'no_such_gallery' })
    expect(example('/gallery/{sessionId}/zip', 'get', '404', 'text/plain')).toBe('Not Found')
    expect(example('/track', 'post', '400')).toEqual({ error: 'bad body', code: 'bad_body' })
    expect(example('/booth/events', 'get', '401', 'text/plain')).toBe('Unauthorized')
    expect(example('/booth/sessions/{sessionId}/complete', 'post', '409')).toEqual({
      error: 'session is already completed',
      code: 'session_not_active',
    })
    expect(example('/booth/sessions/{sessionId}/complete', 'post', '422')).toMatchObject({
      code: 'photo_keys_missing',
      missing: [expect.any(String)],
    })
    expect(example('/booth/sessions/{sessionId}/complete', 'post', '500')).toEqual({ error: 'Internal server error', code: 'internal' })
    expect(example('/sets/{setId}/sessions', 'post', '400')).toEqual({
      error: 'Ada needs an email or a phone number',
      code: 'missing_contact',
      field: 'guests.0',
    })
  })

  it('when read, then every `{ error }` example carries the stable code the service answers, one of its status', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    const wrong: string[] = []
    for (const { path, method, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const example = (response.content?.['application/json'] as { example?: { error?: unknown; code?: unknown } } | undefined)?.example
        if (Number(status) < 400 || typeof example?.error !== 'string') continue
        const code = example.code as keyof typeof ERROR_CODE_TABLE
        if (ERROR_CODE_TABLE[code]?.status !== Number(status)) wrong.push(`${method.toUpperCase()} ${path} ${status}: ${String(code)}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it('when read, then every operation documents 400, 404 and 500 in the shapes the server answers', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    for (const { path, method, operation } of operations(document)) {
      // The byte routes answer their own media types; the health probes take no input and answer
      // 200 or 503 only (the Redocly rule asking for a 4xx is ignored for them, redocly.yaml); a
      // HEAD's answers have no body (its own test above).
      if (BYTE_ROUTES.includes(path) || PROBES.includes(path) || method === 'head') continue
      const schemaOf = (status: string) => operation.responses[status]?.content?.['application/json']?.schema
      if (path.startsWith('/api/auth/')) {
        // Better Auth's refusals, in the service's `{ error }`: never the validator's shape.
        expect(shapeOf(schemaOf('400')), operation.operationId).toEqual({ $ref: '#/components/schemas/ErrorBody' })
        continue
      }
      if (OWN_WORDS.includes(path)) {
        // These answer their own words for any bad body, never the validator's shape.
        expect(shapeOf(schemaOf('400')), operation.operationId).toEqual({ $ref: '#/components/schemas/ErrorBody' })
        expect(shapeOf(schemaOf('429')), operation.operationId).toEqual({ $ref: '#/components/schemas/ErrorBody' })
        continue
      }
      // Told apart by `success`, required (and false) only in ValidationError.
      expect(shapeOf(schemaOf('400')), operation.operationId).toEqual({
        anyOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/ErrorBody' }],
      })
      // A route without a path parameter names nothing that could be missing (the booth's events, staff
      // lists); a provider's report on a message that is gone (erased, purged) is acknowledged, never a 404.
      if (path.includes('{') && !path.startsWith('/webhooks/'))
        expect(shapeOf(schemaOf('404')), operation.operationId).toEqual({ $ref: '#/components/schemas/ErrorBody' })
      expect(shapeOf(schemaOf('500')), operation.operationId).toEqual({ $ref: '#/components/schemas/ErrorBody' })
      expect(codesOf(schemaOf('500')), operation.operationId).toEqual(['internal'])
    }
    expect(document.components.schemas.ErrorBody.required).toEqual(['error'])
    expect(document.components.schemas.ValidationError.required).toEqual(['success', 'error'])
  })

  it('when read, then the byte routes document their media type and the plain-text 404', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    const [photo, zip] = BYTE_ROUTES.map((path) => document.paths[path].get)
    expect(Object.keys(photo.responses['200'].content)).toEqual(['image/jpeg'])
    expect(Object.keys(zip.responses['200'].content)).toEqual(['application/zip'])
    for (const operation of [photo, zip]) {
      expect(operation.responses['404'].content).toEqual({
        'text/plain': { schema: { type: 'string', enum: ['Not Found'] }, example: 'Not Found' },
      })
    }
  })

  it('when read, then the contact form documents 413, 502 and 503, and tracking a bodiless 204', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    expect(Object.keys(document.paths['/contact'].post.responses)).toEqual(
      expect.arrayContaining(['200', '400', '413', '429', '502', '503']),
    )
    expect(document.paths['/track'].post.responses['204']).toEqual({
      description: 'Counted',
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
    })
    expect(Object.keys(document.paths['/track'].post.requestBody.content)).toEqual(['application/json', 'text/plain'])
  })

  it('when read, then registration answers 201 and its body refuses unknown fields', async () => {
    const document = JSON.parse(await readFile(committedPath, 'utf8'))
    const operation = document.paths['/sets/{setId}/sessions'].post
    expect(Object.keys(operation.responses)).toContain('201')
    const body = operation.requestBody.content['application/json'].schema
    expect(body.additionalProperties).toBe(false)
    expect(body.properties.guests).toMatchObject({ minItems: 1, maxItems: 12 })
  })
})
