import { isContractProcedure, type AnyContractRouter } from '@orpc/contract'
import { contract, takesIdempotencyKey as takesKey, type EdgePolicy } from '@photobooth/sdk/contract'

/**
 * Which routes take an `Idempotency-Key`, and the headers' names: shared by the middleware and the
 * OpenAPI document (openapi.ts), without the middleware's dependencies.
 */

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'
export const REPLAYED_HEADER = 'Idempotent-Replayed'

function* procedures(router: AnyContractRouter): Generator<{ route: { method?: string; path?: string }; meta: EdgePolicy }> {
  if (isContractProcedure(router)) return void (yield router['~orpc'] as { route: { method?: string; path?: string }; meta: EdgePolicy })
  for (const child of Object.values(router)) yield* procedures(child as AnyContractRouter)
}

/** `METHOD /contract/{path}` of every route that takes a key, by the contract's one rule. */
const KEYED = new Set(
  [...procedures(contract)].filter(({ route, meta }) => takesKey(route, meta)).map(({ route }) => `${route.method} ${route.path}`),
)

/**
 * Whether a route takes a key (`takesIdempotencyKey` of the contract). `path` is a contract path
 * (`/sets/{setId}/sessions`) or an Express one (`/sets/:setId/sessions`).
 */
export function takesIdempotencyKey(method: string, path: string): boolean {
  return KEYED.has(`${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}')}`)
}
