import type { OpenAPI } from '@orpc/openapi'
import { ERROR_CODE_LIST, ERROR_CODE_TABLE, type EdgePolicy, type ErrorCode } from '@photobooth/sdk/contract'
import { STAFF_ROLES } from '@photobooth/sdk/schemas'

import { takesIdempotencyKey } from './modules/idempotency/index.js'
import { exampleWithCode, procedures } from './openapi-examples.js'
import type { OpenApiDocument } from './openapi.js'

/** What each error status means, before the codes a route answers with it (the document's descriptions). */
const LEADS: Record<string, string> = {
  '400':
    "Bad input; retrying it as it is is pointless. A schema failure comes in the validator's shape (`success: false`, `error.message` listing the field errors, no `code`); any other refusal is `{ error, code }`.",
  '401': 'Not signed in, or not let in: `{ error, code }`.',
  '403': 'Refused for this caller; nothing changed: `{ error, code }`.',
  '404': 'Not found: `{ error, code }`.',
  '409': 'A conflict with the current state; nothing changed: `{ error, code }`.',
  '413': 'Too large: `{ error, code }`.',
  '415': 'A body of a media type the route does not take: `{ error, code }`.',
  '422': 'Refused; nothing was written: `{ error, code }`.',
  '429': 'Over the rate limit for this client IP: `{ error, code }`.',
  '500': 'A fault of the service: `{ error, code }`.',
  '502': 'An upstream refused: `{ error, code }`.',
  '503': 'Unavailable; nothing changed: `{ error, code }`.',
}

/** A staff route's least role above the lowest: a member below it is refused (`insufficient_role`). */
const refusesRoles = (role: EdgePolicy['role']) => role !== undefined && role !== STAFF_ROLES.at(-1)

/**
 * The codes the edge answers on a route of this kind, by status, before any procedure runs:
 * http/ (a path it cannot decode, a body cut at its limit or not UTF-8, a media type, a rate limit,
 * a fault, the database away), the booth's and staff's authentication and gates, the idempotency
 * keys, Better Auth's refusals. Only those of the statuses the route's document lists are kept.
 */
function edgeCodes(path: string, method: string, meta: EdgePolicy): Record<string, ErrorCode[]> {
  const codes: Record<string, ErrorCode[]> = {}
  const add = (status: number, ...list: ErrorCode[]) => (codes[status] ??= []).push(...list)
  const writes = method !== 'get'
  const auth = path.startsWith('/api/auth/')
  // Any request the HTTP layer cannot read (a path it cannot decode, no Host, a body cut short).
  add(400, 'malformed_request')
  if (meta.textBody) {
    add(meta.textBody.tooLarge.status, meta.textBody.tooLarge.code)
    add(400, meta.textBody.notText.code)
  } else if (writes) add(400, 'body_too_large', 'not_utf8')
  if (auth && writes) add(400, 'bad_request')
  if (takesIdempotencyKey(method, path)) {
    add(400, 'invalid_idempotency_key', ...(path.startsWith('/sets/') ? (['guessable_idempotency_key'] as const) : []))
    add(409, 'idempotency_in_flight')
    add(422, 'idempotency_key_reused')
    add(410, 'gone')
  }
  if (path.startsWith('/booth/')) add(400, 'malformed_authorization')
  add(401, 'unauthorized')
  if (path.startsWith('/staff/')) {
    if (refusesRoles(meta.role)) add(403, 'insufficient_role')
    // A member who must first change their password, or set up a second factor, may still ask who they are.
    if (!(path === '/staff/me' && method === 'get')) add(403, 'password_change_required', 'two_factor_required')
    if (writes) add(403, 'untrusted_origin')
  }
  if (auth) add(403, 'forbidden', 'untrusted_origin')
  add(415, 'unsupported_media_type')
  add(429, 'rate_limited')
  add(500, 'internal')
  if (path !== '/readyz') add(503, 'database_unavailable')
  return codes
}

type Declared = { status?: number; codes?: readonly ErrorCode[] } | undefined

/** The codes a route declares for a status (`withCodes` in the contract's errors). */
function declaredCodes(errorMap: Record<string, Declared>, status: string): ErrorCode[] {
  return Object.values(errorMap).flatMap((error) => (String(error?.status) === status ? (error?.codes ?? []) : []))
}

const isErrorBodyRef = (schema: unknown) => (schema as { $ref?: string } | undefined)?.$ref === '#/components/schemas/ErrorBody'

/** Whether a response's schema is, or may be, `ErrorBody` (a 400's or a 422's alternatives). */
function carriesErrorBody(schema: unknown): boolean {
  if (isErrorBodyRef(schema)) return true
  const alternatives = (schema as { anyOf?: unknown[] } | undefined)?.anyOf ?? []
  return alternatives.some(isErrorBodyRef)
}

/** The generic descriptions this replaces: a status's shared words, and the idempotency keys' (openapi.ts). */
export type GenericDescriptions = readonly string[]

/**
 * Each error answer's `code` as an enum of the codes that route answers with that status (the edge's
 * and its own, from the contract's `withCodes`), so that a generated client narrows by route and
 * status: the response's schema becomes `ErrorBody` (or its alternatives) and that enum. Its
 * description lists them with their meanings, in place of words shared by every route; a route's
 * own words are kept, the list after them. An example whose code is not in the list, or a JSON error
 * answer with no code at all, fails the generation.
 */
export function documentErrorCodes(document: OpenApiDocument, generic: GenericDescriptions): void {
  const byId = procedures()
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(pathItem ?? {}) as [string, OpenAPI.OperationObject][]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation) || !operation.operationId) continue
      const procedure = byId.get(operation.operationId)
      if (!procedure) continue
      const edge = edgeCodes(path, method, procedure.meta)
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400 || !response || '$ref' in response) continue
        const media = response.content?.['application/json']
        if (!media || !carriesErrorBody(media.schema)) continue
        const declared = declaredCodes(procedure.errorMap, status)
        const codes = ERROR_CODE_LIST.filter((code) => declared.includes(code) || edge[status]?.includes(code))
        const where = `${method.toUpperCase()} ${path} ${status}`
        // A status a route's kind declares that this one cannot answer (a 400 of a route that takes no
        // input, a 403 of `GET /staff/me`): not listed, rather than listed with no code.
        if (codes.length === 0) {
          delete operation.responses![status]
          continue
        }
        const foreign = codes.filter((code) => String(ERROR_CODE_TABLE[code].status) !== status)
        if (foreign.length > 0) throw new Error(`${where}: ${foreign.join(', ')} answer another status (ERROR_CODE_TABLE)`)
        const example = (media.example as { code?: unknown } | undefined)?.code
        if (media.example === undefined || (typeof example === 'string' && !codes.includes(example as ErrorCode))) {
          media.example = exampleWithCode(codes)
          if (!media.example)
            throw new Error(`${where}: no example is known for any of its codes (${codes.join(', ')}): openapi-examples.ts`)
        }
        media.schema = { allOf: [media.schema!, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] }
        const list = codes.map((code) => `- \`${code}\`: ${ERROR_CODE_TABLE[code].meaning}`).join('\n')
        const own = generic.some((words) => response.description.startsWith(words)) ? LEADS[status] : response.description
        response.description = `${own ? `${own} ` : ''}Its \`code\`, one of:\n\n${list}`
      }
    }
  }
}

/** `X-Request-Id` on every answer (http/request-id.ts), declared once and named by each response. */
export function documentRequestIds(document: OpenApiDocument): void {
  const components = (document.components ??= {})
  components.headers = {
    ...components.headers,
    RequestId: {
      description:
        "This request's id: the client's own `X-Request-Id` when it sent a UUID, else a new UUID. Every log line of the request carries it, and the audit trail keeps it: quote it when reporting a problem.",
      schema: { type: 'string', format: 'uuid' },
    },
  }
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem ?? {}) as OpenAPI.OperationObject[]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue
      for (const response of Object.values(operation.responses ?? {})) {
        if (response && !('$ref' in response))
          response.headers = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' }, ...response.headers }
      }
    }
  }
}
