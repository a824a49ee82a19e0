import { contract } from '@photobooth/sdk/contract'
import { fromNodeHeaders } from 'better-auth/node'
import type { Request, RequestHandler, Response } from 'express'

import type { Services } from '../../context.js'
import { expressPath, routeMatched, routesOf } from '../../http/edge.js'
import { newId } from '../../ids.js'
import { requestContext } from '../../logger.js'
import { clientKey } from '../rate-limits/index.js'
import { roleOf, staffOf, type StaffRole } from '../staff/index.js'
import { AuditEvent } from '../../db/entities/audit-event.entity.js'

/** Reads that hand out guests' data in bulk: recorded like the changes. */
const GUEST_DATA_READS = new Set(['exportGuests', 'exportPerson', 'findPeople'])
/**
 * Reads that show guests' contact details in full to some roles (managers and owners; one guest's to
 * the staff role on request): recorded when they did, with how many guests' they showed.
 */
const CONTACT_READS = new Set(['listStaffSessions', 'getStaffSession', 'getGuestContact'])

/** Each staff route by its method and Express pattern, as the edge names the route a request matched. */
const operations = new Map([...routesOf(contract.staff)].map((route) => [`${route.method.toUpperCase()} ${route.path}`, route.operationId]))

/** The ids a path holds, by the pattern it matched: `/staff/events/:eventId` on `/staff/events/e1` is `{ eventId: 'e1' }`. */
function targetsOf(pattern: string, path: string): Record<string, string> {
  const names = pattern.split('/')
  const values = path.split('/')
  return Object.fromEntries(
    names.flatMap((name, index) => (name.startsWith(':') ? [[name.slice(1), decodeURIComponent(values[index] ?? '')]] : [])),
  )
}

/**
 * The audit trail's writer, on every /staff request once authenticated: when its answer is sent, a
 * change (any method but GET and HEAD), a read of guests' data in bulk or of their contacts, and any
 * read refused (a role's 403) are recorded with their status, with what the request noted
 * (`StaffCaller.auditNotes`: a creation's new id and scope, how many guests' contacts were shown).
 */
export function auditTrail(services: AuditServices): RequestHandler {
  return (req, res, next) => {
    const staff = staffOf(req)
    // Mounted on /staff: the path as the edge matched it, from the app's root.
    const path = `${req.baseUrl}${req.path}`
    if (staff) {
      recordWhenAnswered(services, req, res, staff, () => {
        const pattern = routeMatched.get(req)
        const action = pattern ? operations.get(`${methodOf(req)} ${pattern}`) : undefined
        if (!action) return undefined
        const targets = { ...targetsOf(pattern!, path), ...staff.auditNotes }
        // Changes, bulk reads of guests' data, reads that showed contacts, and every read refused.
        const recorded =
          methodOf(req) !== 'GET' ||
          GUEST_DATA_READS.has(action) ||
          (CONTACT_READS.has(action) && staff.auditNotes?.guests !== undefined) ||
          res.statusCode === 403
        return recorded ? { action, targets } : undefined
      })
    }
    next()
  }
}

/** The sign-in routes that change a signed-in member's own account: recorded as the staff routes' changes. */
const ACCOUNT_CHANGES = new Map(
  [
    contract.staff.auth.changePassword,
    contract.staff.auth.signOut,
    contract.staff.auth.enableTwoFactor,
    contract.staff.auth.verifyTotp,
    contract.staff.auth.disableTwoFactor,
  ].map((procedure) => [expressPath(procedure), procedure['~orpc'].route.operationId!]),
)

/**
 * The audit trail of a member's own account (a password changed, a second factor set up or removed,
 * a sign-out): the member is the session's, read before Better Auth acts on it.
 */
export function accountAuditTrail(services: AuditServices & Pick<Services, 'auth'>): RequestHandler {
  return async (req, res, next) => {
    const action = req.method === 'POST' ? ACCOUNT_CHANGES.get(req.path) : undefined
    if (!action) return next()
    try {
      const session = await services.auth.api.getSession({ headers: fromNodeHeaders(req.headers) })
      if (session)
        recordWhenAnswered(services, req, res, { memberId: session.user.id, role: roleOf(session.user.role) }, () => ({
          action,
          targets: {},
        }))
      next()
    } catch (error) {
      next(error)
    }
  }
}

type AuditServices = Pick<Services, 'orm' | 'logger' | 'config' | 'metrics'>

/**
 * A step of signing in, recorded once answered: the password (`signIn`, its member found by the
 * address given, when one has it) and a second factor completing a sign-in (`verifyTotp`,
 * `verifyBackupCode`). The sign-in routes know the member only as Better Auth answers (auth.routes.ts).
 */
export function auditSignIn(
  services: AuditServices,
  req: Request,
  res: Response,
  member: { memberId: string; role: StaffRole },
  action: string,
  targets: Record<string, string> = {},
): void {
  recordWhenAnswered(services, req, res, member, () => ({ action, targets }))
}

/**
 * Writes one event once the answer is sent, if `what` names one: off the answer's path, so a failure
 * to write is logged and counted, never turned into the answer's failure.
 */
function recordWhenAnswered(
  services: AuditServices,
  req: Request,
  res: Response,
  member: { memberId: string; role: StaffRole },
  what: () => { action: string; targets: Record<string, string> } | undefined,
): void {
  const requestId = requestContext.getStore()?.requestId ?? ''
  res.once('finish', () => {
    const recorded = what()
    if (!recorded) return
    const event = Object.assign(new AuditEvent(), {
      id: newId(),
      ...member,
      ...recorded,
      status: res.statusCode,
      requestId,
      sourceIp: clientKey(req, services.config.rateLimits),
    })
    services.orm.em
      .fork()
      .insert(event)
      .catch((error: unknown) => {
        services.metrics.auditWriteFailures.inc()
        services.logger.error('an audit event could not be written', error)
      })
  })
}

/** As the client asked: the API's handler answers a HEAD as its GET, and says so in req.method. */
const methodOf = (req: Request) => (req.method === 'HEAD' ? 'GET' : req.method)
