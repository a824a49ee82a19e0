import type { CurrentSession } from '@photobooth/sdk/schemas'
import { fromNodeHeaders } from 'better-auth/node'
import type { z } from 'zod'

import { api } from '../../orpc.js'
import { withoutTokens } from './auth.routes.js'

/**
 * The one sign-in route oRPC answers: the current session, a read, for which Better Auth's router adds
 * nothing to its API (better-auth 1.7.25: its origin check passes a GET or HEAD, its rate limiter is
 * off here, and the two-factor plugin hooks no request; docs/architecture.md, "What Express
 * answers"). A session renewed by the read comes back as Better Auth's cookie; the answer, as every
 * other, carries no token.
 */
export const staffAuthRouter = {
  getSession: api.staff.auth.getSession.handler(async ({ context }) => {
    const response = await context.auth.api.getSession({ headers: fromNodeHeaders(context.request?.headers ?? {}), asResponse: true })
    for (const cookie of response.headers.getSetCookie()) context.resHeaders?.append('Set-Cookie', cookie)
    // Better Auth's own answer, its tokens left out: what the contract's CurrentSession describes.
    return withoutTokens(await response.json()) as z.output<typeof CurrentSession>
  }),
}
