/**
 * Writes the generated files from the zod contract: the OpenAPI document and the minified
 * contract the SDK ships. With --check, writes nothing and fails when a committed file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'

import { minifyContractRouter } from '@orpc/contract'
import { contract } from '@photobooth/sdk/contract'

import { buildOpenApiDocument } from '../server/src/openapi.js'

/** What the SDK's link needs of each route; summaries and descriptions stay in the document. */
const ROUTE_KEYS_FOR_CLIENTS = ['method', 'path', 'inputStructure', 'outputStructure', 'successStatus'] as const

function routesOnly(router: unknown): unknown {
  if (typeof router !== 'object' || router === null) return router
  if ('~orpc' in router) {
    const route = (router as { '~orpc': { route: Record<string, unknown> } })['~orpc'].route
    const kept = Object.fromEntries(ROUTE_KEYS_FOR_CLIENTS.filter((key) => key in route).map((key) => [key, route[key]]))
    return { '~orpc': { errorMap: {}, meta: {}, route: kept } }
  }
  return Object.fromEntries(Object.entries(router).map(([key, value]) => [key, routesOnly(value)]))
}

const root = resolve(import.meta.dirname, '..')
const files: Record<string, string> = {
  'openapi/openapi.json': `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`,
  'sdk/src/generated/contract.json': `${JSON.stringify(routesOnly(minifyContractRouter(contract)), null, 2)}\n`,
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
