import type { OpenAPI } from '@orpc/openapi'
import { ORPCError, ValidationError } from '@orpc/server'
import { contract } from '@photobooth/sdk/contract'
import type { z } from 'zod'

import { encodeErrorBody, INTERNAL_ERROR_BODY } from './errors.js'
import { NO_SUCH_EVENT, NO_SUCH_SET } from './modules/events/events.service.js'
import { NO_SUCH_GALLERY } from './modules/gallery/gallery.service.js'
import { NO_SUCH_PERSON } from './modules/people/people.service.js'
import { NOT_SUPPRESSED } from './modules/receipts/receipts.service.js'
import { NO_SUCH_SESSION } from './modules/sessions/session-state.js'
import type { OpenApiDocument } from './openapi.js'

type Procedure = {
  route: { operationId?: string; path?: string; inputStructure?: 'compact' | 'detailed' }
  errorMap: Record<string, { status?: number; message?: string } | undefined>
  inputSchema?: z.ZodType
}

/** A 404's words by the path's last parameter: what was not found. */
const NOT_FOUND_BY_PARAMETER: Record<string, string> = {
  setSlug: NO_SUCH_SET,
  setId: NO_SUCH_SET,
  slug: NO_SUCH_EVENT,
  eventId: NO_SUCH_EVENT,
  sessionId: NO_SUCH_SESSION,
  customerId: NO_SUCH_PERSON,
  memberId: 'no such staff member',
  messageId: 'no such message',
  keyId: 'no such booth key',
}

const SESSION_NOT_ACTIVE = 'session is already completed'
const LAST_OWNER = 'This is the last owner: make another member owner first'

/**
 * A route's own words for a status, where neither its path nor its declared message says them: the
 * texts the service answers (the contract declares one generic message per status, such as 'Conflict').
 */
const OWN_WORDS: Record<string, Record<string, string>> = {
  registerGuests: { '400': 'Ada needs an email or a phone number' },
  listBoothEvents: { '400': 'Malformed Authorization header: expected "Bearer <booth key>"' },
  getGallery: { '404': NO_SUCH_GALLERY },
  createUploads: { '409': SESSION_NOT_ACTIVE, '503': 'photo storage is not configured' },
  completeSession: { '409': SESSION_NOT_ACTIVE, '503': 'photo storage is not configured' },
  cancelSession: { '409': SESSION_NOT_ACTIVE },
  track: { '400': 'bad body' },
  contact: { '400': 'Unknown fields: Fax' },
  createEvent: { '409': 'An event with the slug summer-gala already exists' },
  updateEvent: { '409': 'An event with the slug summer-gala already exists' },
  deleteEvent: { '409': 'The event has 2 active sessions; pass force=true to delete it anyway' },
  createSet: { '409': 'The event already has a set with the slug photo-wall' },
  updateSet: { '409': 'The event already has a set with the slug photo-wall' },
  deleteSet: { '409': 'The set has 1 active session; pass force=true to delete it anyway' },
  createBoothKey: { '404': NO_SUCH_EVENT },
  resendGalleryLinks: { '409': 'The session is not a live gallery' },
  cancelStaffSession: { '409': SESSION_NOT_ACTIVE },
  retryMessage: { '409': 'Only a failed message can be retried; this one is delivered' },
  retrySessionMessages: { '409': 'Messages were queued meanwhile: try again' },
  retryEventMessages: { '409': 'Messages were queued meanwhile: try again' },
  liftSuppression: { '404': NOT_SUPPRESSED },
  inviteStaffMember: { '409': 'A staff member with the email grace@example.org already exists' },
  removeStaffMember: { '409': LAST_OWNER },
  setStaffRole: { '409': LAST_OWNER },
  updateTeamSettings: { '409': 'Set up your own second factor first (POST /api/auth/two-factor/enable)' },
}

/** What a status answers on a route that declares no message for it (the byte routes describe their own answers). */
const BY_STATUS: Record<string, string> = {
  '429': 'Too many requests. Try again in a minute.',
  '500': INTERNAL_ERROR_BODY.error,
  '503': 'The database is unavailable. Try again in a moment.',
}

/** The contract's procedures by operation id. */
function procedures(): Map<string, Procedure> {
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
    if (issues.length > 0)
      return encodeErrorBody(new ORPCError('BAD_REQUEST', { cause: new ValidationError({ message: 'Input validation failed', issues }) }))
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
  const own = OWN_WORDS[operationId]?.[status]
  if (alternatives.includes('#/components/schemas/PhotoKeysError')) return context.photoKeys
  if (alternatives.includes('#/components/schemas/ValidationError'))
    return own ? { error: own } : context.procedure && validationExample(context.procedure)
  if (!isErrorObject(schema)) return undefined
  const lastParameter = [...path.matchAll(/\{(\w+)\}/g)].at(-1)?.[1]
  const declared = Object.values(context.procedure?.errorMap ?? {}).find((error) => String(error?.status) === status)?.message
  const text =
    own ?? (status === '404' && lastParameter ? NOT_FOUND_BY_PARAMETER[lastParameter] : undefined) ?? declared ?? BY_STATUS[status]
  return text === undefined ? undefined : { error: text }
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
