/**
 * Writes the generated files from the zod contract: the OpenAPI document and the minified
 * contract the SDK ships. With --check, writes nothing and fails when a committed file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'

import { COMMON_ORPC_ERROR_DEFS } from '@orpc/client'
import { ORPCError } from '@orpc/contract'
import { contract, SDK_AREAS, takesIdempotencyKey, type EdgePolicy } from '@photobooth/sdk/contract'

import { buildOpenApiDocument } from '../server/src/openapi.js'
import { architectureDocument } from './architecture-map.js'
import { generateTypes } from '../test/openapi/generated/generate.js'

/** What the SDK's link needs of each route; summaries and descriptions stay in the document. */
const ROUTE_KEYS_FOR_CLIENTS = ['method', 'path', 'inputStructure', 'outputStructure', 'successStatus'] as const

type Procedure = {
  '~orpc': { route: Record<string, unknown>; errorMap: Record<string, { status?: number } | undefined>; meta: EdgePolicy }
}

/**
 * The contract minified for clients: each route's HTTP shape, and its declared error codes with
 * their statuses only (no messages, no data schemas), so the SDK can tell at run time which
 * answers are a route's defined errors.
 */
function routesOnly(router: unknown): unknown {
  if (typeof router !== 'object' || router === null) return router
  if ('~orpc' in router) {
    const { route, errorMap, meta } = (router as Procedure)['~orpc']
    const kept = Object.fromEntries(ROUTE_KEYS_FOR_CLIENTS.filter((key) => key in route).map((key) => [key, route[key]]))
    const codes = Object.fromEntries(
      Object.entries(errorMap).map(([code, item]) => [code, { status: new ORPCError(code, { status: item?.status }).status }]),
    )
    // Whether the SDK sends an Idempotency-Key, and may therefore retry the change.
    return { '~orpc': { errorMap: codes, meta: takesIdempotencyKey(route, meta) ? { idempotencyKey: true } : {}, route: kept } }
  }
  return Object.fromEntries(Object.entries(router).map(([key, value]) => [key, routesOnly(value)]))
}

const root = resolve(import.meta.dirname, '..')
const document = JSON.parse(JSON.stringify(await buildOpenApiDocument())) as unknown
const files: Record<string, string> = {
  'openapi/openapi.json': `${JSON.stringify(document, null, 2)}\n`,
  // What an independent generator makes of the document: the independent client's test compiles against it.
  'test/openapi/generated/openapi.d.ts': await generateTypes(document),
  'sdk/src/generated/contract.json': `${JSON.stringify(routesOnly(contract), null, 2)}\n`,
  // Each per-area entry's routes only: a kiosk app ships none of the staff's.
  ...Object.fromEntries(
    Object.entries(SDK_AREAS).map(([entry, areas]) => [
      `sdk/src/generated/${entry}-routes.json`,
      `${JSON.stringify(routesOnly(Object.fromEntries(areas.map((area) => [area, contract[area]]))), null, 2)}\n`,
    ]),
  ),
  // oRPC's code for each status, for the SDK's undeclared answers: its table (with messages and
  // ORPCError's code) would be most of a kiosk's bundle.
  'sdk/src/generated/orpc-status-codes.json': `${JSON.stringify(
    Object.fromEntries(Object.entries(COMMON_ORPC_ERROR_DEFS).map(([code, { status }]) => [status, code])),
    null,
    2,
  )}\n`,
  // The route map, from the contract and the sources (the text around it is written by hand).
  'docs/architecture.md': architectureDocument(await readFile(resolve(root, 'docs/architecture.md'), 'utf8')),
}

const check = process.argv.includes('--check')
const stale: string[] = []
for (const [path, content] of Object.entries(files)) {
  const current = await readFile(resolve(root, path), 'utf8').catch(() => undefined)
  if (current === content) continue
  if (check) stale.push(path)
  else await writeFile(resolve(root, path), content)
}
if (stale.length > 0) {
  console.error(`Stale generated files (run \`pnpm generate\` and commit): ${stale.join(', ')}`)
  process.exit(1)
}
console.log(check ? 'Generated files are up to date.' : `Wrote ${Object.keys(files).join(', ')}`)
