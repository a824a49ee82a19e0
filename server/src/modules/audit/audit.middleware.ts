import { contract } from '@photobooth/sdk/contract'
import type { Request, RequestHandler } from 'express'

import type { Services } from '../../context.js'
import { routeMatched, routesOf } from '../../http/edge.js'
import { newId } from '../../ids.js'
import { requestContext } from '../../logger.js'
import { clientKey } from '../rate-limits/rate-limits.js'
import { staffOf } from '../staff/staff-auth.middleware.js'
import { AuditEvent } from './audit-event.entity.js'

/** Reads that hand out guests' data in bulk: recorded like the changes. */
const GUEST_DATA_READS = new Set(['exportGuests', 'exportPerson', 'findPeople'])

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
 * change (any method but GET and HEAD) or a read of guests' data in bulk is recorded with its status,
 * refusals included. Written after the answer, off its path: a failure to write is logged and
 * counted, never turned into the answer's failure.
 */
export function auditTrail(services: Pick<Services, 'orm' | 'logger' | 'config' | 'metrics'>): RequestHandler {
  return (req, res, next) => {
    const staff = staffOf(req)
    // Mounted on /staff: the path as the edge matched it, from the app's root.
    const path = `${req.baseUrl}${req.path}`
    const request = requestContext.getStore()?.requestId ?? ''
    if (staff) {
      res.once('finish', () => {
        const pattern = routeMatched.get(req)
        const action = pattern ? operations.get(`${methodOf(req)} ${pattern}`) : undefined
        if (!action || (methodOf(req) === 'GET' && !GUEST_DATA_READS.has(action))) return
        const event = Object.assign(new AuditEvent(), {
          id: newId(),
          memberId: staff.memberId,
          role: staff.role,
          action,
          targets: targetsOf(pattern!, path),
          status: res.statusCode,
          requestId: request,
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
    next()
  }
}

/** As the client asked: the API's handler answers a HEAD as its GET, and says so in req.method. */
const methodOf = (req: Request) => (req.method === 'HEAD' ? 'GET' : req.method)
