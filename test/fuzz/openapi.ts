/** The operations of `openapi/openapi.json`, as the fuzzer derives requests from them. */
import { readFileSync } from 'node:fs'

export type Schema = {
  $ref?: string
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  propertyNames?: Schema
  items?: Schema
  minItems?: number
  maxItems?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  const?: unknown
  enum?: unknown[]
  anyOf?: Schema[]
  allOf?: Schema[]
}

type Parameter = { name: string; in: string; required?: boolean; schema: Schema }
type OperationObject = {
  operationId?: string
  parameters?: Parameter[]
  security?: Record<string, string[]>[]
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }
  responses: Record<string, unknown>
}
type Document = { paths: Record<string, Record<string, OperationObject>>; components: { schemas: Record<string, Schema> } }

export type Operation = {
  /** `POST /sets/{setId}/sessions` */
  id: string
  method: string
  template: string
  pathParams: { name: string; schema: Schema }[]
  /** The `in: query` parameters it declares (all optional here). */
  queryParams: { name: string; schema: Schema }[]
  /** Media types of the request body, and its schema (the same for each here). */
  bodyTypes: string[]
  bodySchema?: Schema
  /** What it needs: `Authorization: Bearer <booth key>`, or a staff session cookie (and, for a change, a trusted `Origin`). */
  security: 'boothKey' | 'staffSession' | undefined
}

export const document = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Document

export function resolveSchema(schema: Schema): Schema {
  if (!schema.$ref) return schema
  const name = schema.$ref.replace('#/components/schemas/', '')
  const target = document.components.schemas[name]
  if (!target) throw new Error(`unknown schema ${schema.$ref}`)
  return resolveSchema(target)
}

const parametersIn = (operation: OperationObject, where: 'path' | 'query') =>
  (operation.parameters ?? []).filter((parameter) => parameter.in === where).map(({ name, schema }) => ({ name, schema }))

// A documented HEAD is its GET without bodies: the fuzzer sends HEAD as one of a GET's methods (requests.ts).
export const operations: Operation[] = Object.entries(document.paths).flatMap(([template, methods]) =>
  Object.entries(methods)
    .filter(([method]) => method !== 'head')
    .map(([method, operation]) => {
      const content = operation.requestBody?.content ?? {}
      const bodyTypes = Object.keys(content)
      return {
        id: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        pathParams: parametersIn(operation, 'path'),
        queryParams: parametersIn(operation, 'query'),
        bodyTypes,
        bodySchema: bodyTypes[0] ? content[bodyTypes[0]]!.schema : undefined,
        security: (['boothKey', 'staffSession'] as const).find((scheme) =>
          (operation.security ?? []).some((requirement) => scheme in requirement),
        ),
      }
    }),
)

/**
 * Each template by its segments: a `{name}` fits any non-empty segment, any other must be equal.
 * Matched segment by segment, never with a regular expression: a fuzzed path of megabytes would
 * overflow the regular expression engine's backtracking stack.
 */
const templates = [...new Set(operations.map((operation) => operation.template))].map((template) => {
  const segments = template.split('/')
  return {
    template,
    fits: (path: string) => {
      const parts = path.split('/')
      return (
        parts.length === segments.length &&
        segments.every((segment, index) => (/^\{\w+\}$/.test(segment) ? parts[index] !== '' : parts[index] === segment))
      )
    },
  }
})

/**
 * Paths outside the document by where they go first: the sign-in limit (every /api/auth/sign-in/*),
 * the JSON 404 (only the document's routes of Better Auth are mounted), the booth key's check, the
 * staff session's check. Most specific first.
 */
const PREFIX_GROUPS = [
  ['/api/auth/sign-in', '/api/auth/sign-in/*'],
  ['/api/auth', '/api/auth/*'],
  ['/booth', '/booth/(unrouted)'],
  ['/staff', '/staff/(unrouted)'],
] as const

/**
 * The route a request reaches, for grouping failures: the path as the server resolves it (dot
 * segments, `%2e`, backslashes and empty segments, as `app.ts`'s canonicalPath does), matched
 * against the document's templates and the routes outside it.
 */
export function routeOf(method: string, target: string): { path: string | undefined; route: string } {
  const path = canonicalPath(target)
  if (path === undefined) return { path, route: `${method} (no path)` }
  const verb = /^[A-Z]+$/.test(method) ? method : 'OTHER'
  if (path === '/openapi.json') return { path, route: `${verb} /openapi.json` }
  if (path.startsWith('/photos/')) return { path, route: `${verb} /photos/*` }
  const found = templates.find(({ fits }) => fits(path))
  if (found) return { path, route: `${verb} ${found.template}` }
  // Express's mounts ignore case: `/STAFF/x` meets the staff session's check.
  const lower = path.toLowerCase()
  for (const [prefix, group] of PREFIX_GROUPS) {
    if (lower === prefix || lower.startsWith(`${prefix}/`)) return { path, route: `${verb} ${group}` }
  }
  return { path, route: `${verb} (unrouted)` }
}

/**
 * The codes the document lists for an answer of this status to this request's route (the route's
 * `code` enum), or undefined when the request is no operation of the document or the operation lists
 * no such JSON answer.
 */
export function documentedCodes(method: string, target: string, status: number): unknown[] | undefined {
  const [verb, template] = routeOf(method, target).route.split(' ')
  const operation = template === undefined ? undefined : document.paths[template]?.[verb!.toLowerCase()]
  const answer = operation?.responses[String(status)] as { content?: Record<string, { schema?: Schema }> } | undefined
  return answer?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum
}

export function canonicalPath(target: string): string | undefined {
  try {
    const url = new URL(`http://localhost${target.startsWith('/') ? '' : '/'}${target}`)
    return url.pathname.replace(/\/{2,}/g, '/').replace(/(?<=.)\/$/, '') || '/'
  } catch {
    return undefined
  }
}
