import { implement } from '@orpc/server'
import { contract } from '@photobooth/sdk/contract'

import type { AppContext } from './context.js'
import { AppError } from './errors.js'

const os = implement(contract).$context<AppContext>()

/** Domain functions throw AppError and know nothing of oRPC; this turns them into answers. */
const answerAppErrors = os.middleware(async ({ next }) => {
  try {
    return await next()
  } catch (error) {
    throw error instanceof AppError ? error.toORPCError() : error
  }
})

/** The implementer every router builds on: public procedures, domain errors answered. */
export const pub = os.use(answerAppErrors)
