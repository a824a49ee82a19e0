import type { OpenAPI } from '@orpc/openapi'
import { contract, type EdgePolicy, type ErrorCode } from '@photobooth/sdk/contract'
import type { z } from 'zod'

import { errorBody, encodeErrorBody, INTERNAL_ERROR_BODY, schemaFailure, type CodedErrorBody } from './errors.js'
import { NOT_FOUND_BODY } from './http/answers.js'
import { KEY_STILL_RUNNING, KEY_USED_WITH_ANOTHER_BODY } from './modules/idempotency/index.js'
import { CHANGE_PASSWORD_FIRST, roleRefusal, SET_UP_TWO_FACTOR, STAFF_UNAUTHORIZED } from './modules/staff/index.js'
import { unavailableBody } from './outages.js'
import { NO_SUCH_EVENT, NO_SUCH_SET } from './modules/events/index.js'
import { NO_SUCH_GALLERY } from './modules/gallery/index.js'
import { NO_SUCH_PERSON } from './modules/people/index.js'
import { NOT_SUPPRESSED } from './modules/messages/index.js'
import { GONE, NO_SUCH_SESSION } from './modules/sessions/index.js'
import type { OpenApiDocument } from './openapi.js'

export type Procedure = {
  route: { operationId?: string; path?: string; inputStructure?: 'compact' | 'detailed' }
  errorMap: Record<string, { status?: number; message?: string; codes?: readonly ErrorCode[] } | undefined>
  meta: EdgePolicy
  inputSchema?: z.ZodType
}

/** A 404 by the path's last parameter: what was not found. */
const NOT_FOUND_BY_PARAMETER: Record<string, CodedErrorBody> = {
  setSlug: errorBody('no_such_set', NO_SUCH_SET),
  setId: errorBody('no_such_set', NO_SUCH_SET),
  slug: errorBody('no_such_event', NO_SUCH_EVENT),
  eventId: errorBody('no_such_event', NO_SUCH_EVENT),
  sessionId: errorBody('no_such_session', NO_SUCH_SESSION),
  customerId: errorBody('no_such_person', NO_SUCH_PERSON),
  memberId: errorBody('no_such_member', 'no such staff member'),
  messageId: errorBody('no_such_message', 'no such message'),
  keyId: errorBody('no_such_booth_key', 'no such booth key'),
  guestId: errorBody('no_such_guest', 'no such guest'),
}

const SESSION_NOT_ACTIVE = errorBody('session_not_active', 'session is already completed')
const SESSION_CLAIMED = errorBody('session_claimed', 'Another booth holds this session until 2026-07-01T18:25:12.000Z')
const STORAGE_NOT_CONFIGURED = errorBody('storage_not_configured', 'photo storage is not configured')
const SLUG_TAKEN = errorBody('slug_taken', 'An event with the slug summer-gala already exists')
const SET_SLUG_TAKEN = errorBody('slug_taken', 'The event already has a set with the slug photo-wall')
const LAST_OWNER = errorBody('last_owner', 'This is the last owner: make another member owner first')
const QUEUED_MEANWHILE = errorBody('concurrent_change', 'Messages were queued meanwhile: try again')

/**
 * A route's own answer for a status, where neither its path nor its declared message says it: what
 * the service answers (the contract declares one generic message per status, such as 'Conflict').
 */
const OWN_WORDS: Record<string, Record<string, CodedErrorBody>> = {
  registerGuests: { '400': errorBody('missing_contact', 'Ada needs an email or a phone number', { field: 'guests.0' }) },
  listBoothEvents: { '400': errorBody('malformed_authorization', 'Malformed Authorization header: expected "Bearer <booth key>"') },
  getGallery: { '404': errorBody('no_such_gallery', NO_SUCH_GALLERY) },
  createUploads: { '409': SESSION_NOT_ACTIVE, '503': STORAGE_NOT_CONFIGURED },
  completeSession: { '409': SESSION_NOT_ACTIVE, '503': STORAGE_NOT_CONFIGURED },
  cancelSession: { '409': SESSION_NOT_ACTIVE },
  claimSession: { '409': SESSION_CLAIMED },
  releaseSession: { '409': SESSION_CLAIMED },
  track: { '400': errorBody('bad_body', 'bad body') },
  contact: {
    '400': errorBody('unknown_fields', 'Unknown fields: Fax'),
    '503': errorBody('contact_form_unavailable', 'The contact form is unavailable'),
  },
  createEvent: { '409': SLUG_TAKEN },
  updateEvent: { '409': SLUG_TAKEN },
  deleteEvent: { '409': errorBody('active_sessions', 'The event has 2 active sessions; pass force=true to delete it anyway') },
  createSet: { '409': SET_SLUG_TAKEN },
  updateSet: { '409': SET_SLUG_TAKEN },
  deleteSet: { '409': errorBody('active_sessions', 'The set has 1 active session; pass force=true to delete it anyway') },
  createBoothKey: { '404': errorBody('no_such_event', NO_SUCH_EVENT) },
  resendGalleryLinks: { '409': errorBody('session_not_live', 'The session is not a live gallery') },
  cancelStaffSession: { '409': SESSION_NOT_ACTIVE },
  retryMessage: { '409': errorBody('message_not_failed', 'Only a failed message can be retried; this one is delivered') },
  retrySessionMessages: { '409': QUEUED_MEANWHILE },
  retryEventMessages: { '409': QUEUED_MEANWHILE },
  liftSuppression: { '404': errorBody('not_suppressed', NOT_SUPPRESSED) },
  inviteStaffMember: { '409': errorBody('email_taken', 'A staff member with the email grace@example.org already exists') },
  removeStaffMember: { '409': LAST_OWNER },
  setStaffRole: { '409': LAST_OWNER },
  updateTeamSettings: {
    '409': errorBody('own_two_factor_required', 'Set up your own second factor first (POST /api/auth/two-factor/enable)'),
  },
}

/**
 * What the service answers where a route's declared message stands for it (the contract's message
 * is one text per status; the answer's text may name more). A declared message missing here fails
 * the generation: every example carries the code the service answers.
 */
const DECLARED: Record<string, CodedErrorBody> = {
  'Staff sign-in required': STAFF_UNAUTHORIZED,
  'Origin not trusted': errorBody('untrusted_origin', 'Origin not trusted: https://elsewhere.example'),
  'Your role does not allow this': errorBody('insufficient_role', roleRefusal('staff', 'manager')!),
  'Not found': NOT_FOUND_BODY,
  'A request with this Idempotency-Key is still running': KEY_STILL_RUNNING,
  'This Idempotency-Key was already used for another request': KEY_USED_WITH_ANOTHER_BODY,
  'Invalid email or password': errorBody('unauthorized', 'Invalid email or password'),
  'Invalid code': errorBody('unauthorized', 'Invalid code'),
  'Bad request': errorBody('bad_request', '[body.password] Invalid input: expected string, received undefined'),
  'Message too long': errorBody('payload_too_large', 'Message too long'),
  'The mail provider refused the message': errorBody('mail_refused', 'The mail provider refused the message'),
  'Not ready': errorBody('not_ready', 'database unreachable'),
  'Photo storage is not configured': STORAGE_NOT_CONFIGURED,
  'Webhook credentials required': errorBody('unauthorized', 'Webhook credentials required'),
  'Twilio signature required': errorBody('forbidden', 'Twilio signature required'),
}

/** What a status answers on a route that declares no message for it (the byte routes describe their own answers). */
const BY_STATUS: Record<string, CodedErrorBody> = {
  '429': errorBody('rate_limited', 'Too many requests. Try again in a minute.'),
  '500': INTERNAL_ERROR_BODY,
  '503': unavailableBody('database'),
}

/** Better Auth answers its own refusal of an origin (auth.routes.ts gives it our code). */
const AUTH_UNTRUSTED_ORIGIN = errorBody('untrusted_origin', 'Invalid origin')

/**
 * An answer for each code these tables know, the first they give: the example of a response whose
 * route's own (by its path, its declared message) carries a code it does not answer with that status.
 */
const BY_CODE = new Map<string, CodedErrorBody>(
  [
    ...Object.values(OWN_WORDS).flatMap((words) => Object.values(words)),
    ...Object.values(NOT_FOUND_BY_PARAMETER),
    ...Object.values(DECLARED),
    ...Object.values(BY_STATUS),
    CHANGE_PASSWORD_FIRST,
    SET_UP_TWO_FACTOR,
    unavailableBody('storage'),
    AUTH_UNTRUSTED_ORIGIN,
    GONE,
    errorBody('malformed_request', 'Malformed request'),
  ]
    .reverse()
    .map((body) => [body.code, body]),
)

/** The example of an answer with one of `codes`: the first of them these tables hold an answer for. */
export function exampleWithCode(codes: readonly string[]): CodedErrorBody | undefined {
  return codes.map((code) => BY_CODE.get(code)).find((body) => body !== undefined)
}

/** The contract's procedures by operation id. */
export function procedures(): Map<string, Procedure> {
  const found = new Map<string, Procedure>()
  const walk = (node: unknown): void => {
    const procedure = (node as { '~orpc'?: Procedure })['~orpc']
    if (procedure?.route) {
      if (procedure.route.operationId) found.set(procedure.route.operationId, procedure)
      return
    }
    for (const child of Object.values(node as object)) walk(child)
  }
  walk(contract)
  return found
}

/** The names an input object schema declares (a `query` part's, for a detailed input). */
function namesOf(schema: z.ZodType | undefined, part?: string): string[] {
  const shape = (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape
  if (!shape) return []
  return part ? namesOf(shape[part]) : Object.keys(shape)
}

/**
 * The validator's 400 for this route, as the service writes it (encodeErrorBody): its first path
 * parameter holding a control character; else an empty body; else its first query parameter
 * given as an object (`?limit[a]=1`). None for a route that takes no input.
 */
function validationExample(procedure: Procedure): unknown {
  const { route, inputSchema } = procedure
  const parameter = /\{(\w+)\}/.exec(route.path ?? '')?.[1]
  const detailed = route.inputStructure === 'detailed'
  const wrap = (part: string, value: object) => (detailed ? { [part]: value } : value)
  const [query] = namesOf(inputSchema, detailed ? 'query' : undefined)
  const naming = (name: string) => (issue: z.core.$ZodIssue) => issue.path.includes(name)
  const tries = [
    ...(parameter ? [{ input: wrap('params', { [parameter]: '\u0001' }), keep: naming(parameter) }] : []),
    ...(detailed && !parameter ? [{ input: { query: {}, body: {} }, keep: (issue: z.core.$ZodIssue) => issue.path[0] === 'body' }] : []),
    ...(query ? [{ input: wrap('query', { [query]: { a: '1' } }), keep: naming(query) }] : []),
  ]
  for (const { input, keep } of tries) {
    const issues = (inputSchema?.safeParse(input).error?.issues ?? []).filter(keep)
    if (issues.length > 0) return encodeErrorBody(schemaFailure(issues))
  }
  return undefined
}

const refOf = (schema: unknown) => (schema as { $ref?: string } | undefined)?.$ref
const alternativesOf = (schema: unknown) => ((schema as { anyOf?: unknown[] } | undefined)?.anyOf ?? []).map(refOf)
const isErrorObject = (schema: unknown) =>
  refOf(schema) === '#/components/schemas/ErrorBody' ||
  JSON.stringify((schema as { required?: unknown } | undefined)?.required) === '["error"]'

/** The one example of an answer that has none: what the route answers with that status. */
function exampleOf(
  { operationId, path, status }: { operationId: string; path: string; status: string },
  type: string,
  schema: unknown,
  context: { procedure?: Procedure; photoKeys: unknown },
): unknown {
  const only = (schema as { enum?: unknown[] } | undefined)?.enum
  if (type === 'text/plain' && only?.length === 1) return only[0]
  if (type !== 'application/json') return undefined
  const alternatives = alternativesOf(schema)
  const own = OWN_WORDS[operationId]?.[status] ?? (status === '403' && path.startsWith('/api/auth/') ? AUTH_UNTRUSTED_ORIGIN : undefined)
  if (alternatives.includes('#/components/schemas/PhotoKeysError')) return context.photoKeys
  if (alternatives.includes('#/components/schemas/ValidationError'))
    return own ?? (context.procedure && validationExample(context.procedure))
  if (!isErrorObject(schema)) return undefined
  if (own) return own
  const lastParameter = [...path.matchAll(/\{(\w+)\}/g)].at(-1)?.[1]
  if (status === '404' && lastParameter && NOT_FOUND_BY_PARAMETER[lastParameter]) return NOT_FOUND_BY_PARAMETER[lastParameter]
  const declared = Object.values(context.procedure?.errorMap ?? {}).find((error) => String(error?.status) === status)?.message
  if (declared === undefined) return BY_STATUS[status]
  const answer = DECLARED[declared] ?? (BY_STATUS[status]?.error === declared ? BY_STATUS[status] : undefined)
  if (!answer) throw new Error(`${operationId} ${status}: no answer known for the declared message "${declared}" (openapi-examples.ts)`)
  return answer
}

/**
 * One example for each error answer of each operation, in the route's own words: the texts the
 * service answers (a plain text's one value, a 404 naming what was not found, completion's missing
 * photo keys, the validator's shape for a bad path parameter), not one shared example.
 */
export function documentErrorExamples(document: OpenApiDocument): void {
  const byId = procedures()
  const photoKeys: unknown = document.components?.schemas?.PhotoKeysError?.examples?.[0]
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(pathItem ?? {}) as OpenAPI.OperationObject[]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation) || !operation.operationId) continue
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) < 400 || !response || !('content' in response)) continue
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (media.example !== undefined) continue
          const example = exampleOf({ operationId: operation.operationId, path, status }, type, media.schema, {
            procedure: byId.get(operation.operationId),
            photoKeys,
          })
          if (example !== undefined) media.example = example
        }
      }
    }
  }
}
