import type { IncomingMessage } from 'node:http'

import type { RequestHandler } from 'express'
import { fromNodeHeaders } from 'better-auth/node'

import type { Services } from '../../context.js'
import { errorBody, sendError } from '../../http/answers.js'
import { currentTeamSettings } from './team.service.js'
import { roleOf, type StaffRole } from './roles.js'

/** The staff member a request is signed in as, with their role as it is now (read with the session). */
export type StaffCaller = {
  memberId: string
  email: string
  name: string
  role: StaffRole
  /**
   * What the audit trail notes of this request beside its path's ids (`auditTrail`): how many guests'
   * contacts a read showed in full (`guests`), a creation's new id and scope (`noteCreations`).
   */
  auditNotes?: Record<string, string>
}

/** The 403 of a member without a second factor, when the team requires one. */
export const SET_UP_TWO_FACTOR = errorBody(
  'two_factor_required',
  'Your team requires a second factor: set one up first (POST /api/auth/two-factor/enable)',
)

/** The 403 of a member who has not yet changed the password they were invited with. */
export const CHANGE_PASSWORD_FIRST = errorBody(
  'password_change_required',
  'Change the password you were invited with first: POST /api/auth/change-password',
)

/** A staff route's 401: JSON, unlike the booth's plain `Unauthorized` (the plain text is the booth API's, for bearer keys). */
export const STAFF_UNAUTHORIZED = errorBody('unauthorized', 'Staff sign-in required')

const members = new WeakMap<IncomingMessage, StaffCaller>()
/** A signed-in member's request that their account's state refuses (a password to change, a second factor to set up). */
const gateRefusals = new WeakMap<IncomingMessage, typeof CHANGE_PASSWORD_FIRST>()

/** The staff member whose session authenticated this request (staff routes only). */
export const staffOf = (req: IncomingMessage): StaffCaller | undefined => members.get(req)

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The origin a state-changing request comes from, as Better Auth reads it: `Origin`, else the
 * origin of `Referer`. Browsers send one of them on every cross-origin POST, PATCH and DELETE; an
 * opaque origin (`null`: a sandboxed frame, a redirect across sites) is one, and trusted by nobody.
 */
function requestOrigin(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin
  if (origin) return origin
  try {
    return req.headers.referer ? new URL(req.headers.referer).origin : undefined
  } catch {
    return undefined
  }
}

/**
 * Refuses a cookie-authenticated change that a page of another site could make: every state-changing
 * staff request names a trusted origin (the same rule Better Auth applies to sign-out and its other
 * routes). SameSite=Lax already keeps the cookie off cross-site POSTs; this holds for same-site
 * origins and older browsers too.
 */
export function checkOrigin(trustedOrigins: readonly string[]): RequestHandler {
  const trusted = new Set(trustedOrigins)
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next()
    const origin = requestOrigin(req)
    if (origin === undefined)
      return sendError(
        res,
        403,
        errorBody('untrusted_origin', 'Missing Origin header: a change by staff must say which site it comes from'),
      )
    if (!trusted.has(origin)) return sendError(res, 403, errorBody('untrusted_origin', `Origin not trusted: ${origin}`))
    next()
  }
}

/**
 * Guards every /staff route: 401 `{ error }` unless the request carries a live staff session (not
 * expired, not signed out, its member not removed, its cookie untampered). A session that Better
 * Auth refreshes on the way passes its new cookie on. The member is then `staffOf(req)`.
 */
export function staffAuthentication(services: Pick<Services, 'auth' | 'orm'>): RequestHandler {
  const { auth } = services
  return async (req, res, next) => {
    // Staff answers hold guests' contact details: no cache, shared or private, keeps a copy.
    res.setHeader('Cache-Control', 'private, no-store')
    try {
      const { headers, response } = await auth.api.getSession({ headers: fromNodeHeaders(req.headers), returnHeaders: true })
      if (!response) return sendError(res, 401, STAFF_UNAUTHORIZED)
      const refreshed = headers.getSetCookie()
      if (refreshed.length > 0) res.append('set-cookie', refreshed)
      const { user } = response
      members.set(req, { memberId: user.id, email: user.email, name: user.name, role: roleOf(user.role) })
      // Until then, only who they are: a password someone else knows opens nothing, nor does a
      // password alone where the team requires a second factor. Refused by `staffGates`, after the
      // audit trail has seen the request, so that the refusal is recorded as any other.
      const onlyWhoTheyAre = req.method === 'GET' && req.path === '/me'
      if (user.mustChangePassword === true && !onlyWhoTheyAre) gateRefusals.set(req, CHANGE_PASSWORD_FIRST)
      else if (user.twoFactorEnabled !== true && !onlyWhoTheyAre && (await currentTeamSettings(services.orm.em.fork())).requireTwoFactor)
        gateRefusals.set(req, SET_UP_TWO_FACTOR)
      next()
    } catch (error) {
      next(error)
    }
  }
}

/** The 403 of a member whose account must change first (staffAuthentication found it), after the audit trail. */
export const staffGates: RequestHandler = (req, res, next) => {
  const refusal = gateRefusals.get(req)
  if (refusal) return sendError(res, 403, refusal)
  next()
}
