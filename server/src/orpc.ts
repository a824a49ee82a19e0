import { ContractProcedure, isContractProcedure, type AnyContractRouter } from '@orpc/contract'
import { implement } from '@orpc/server'
import { servedContract, type ServedContract } from '@photobooth/sdk/contract'

import type { AppContext } from './context.js'

/**
 * The contract as the server runs it: inputs validated, outputs not. Outputs are our own domain
 * functions' values, typed against the contract at compile time and pinned by the tests; checking
 * them again at run time cost a third of the event page's throughput (bench/README.md).
 */
function withoutOutputSchemas(router: AnyContractRouter): AnyContractRouter {
  if (isContractProcedure(router)) return new ContractProcedure({ ...router['~orpc'], outputSchema: undefined })
  return Object.fromEntries(Object.entries(router).map(([key, child]) => [key, withoutOutputSchemas(child)]))
}

/** The implementer every router builds on. Domain errors are ORPCErrors: no middleware translates them. */
export const api = implement(withoutOutputSchemas(servedContract) as ServedContract).$context<AppContext>()
