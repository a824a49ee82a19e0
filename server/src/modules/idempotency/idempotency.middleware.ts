import { createHash, randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'

import type { EntityManager } from '@mikro-orm/postgresql'
import { toNodeHttpBody } from '@orpc/standard-server-node'
import { servedContract } from '@photobooth/sdk/contract'
import { Router, type Request, type RequestHandler, type Response } from 'express'

import type { Services } from '../../context.js'
import { Fault } from '../../errors.js'
import { errorBody, sendError } from '../../http/answers.js'
import { limitBody } from '../../http/body-limit.js'
import { routesOf } from '../../http/edge.js'
import { boothOf } from '../booth-keys/index.js'
import { staffOf } from '../staff/index.js'
import { REPLAYED_HEADER, takesIdempotencyKey } from './idempotency-routes.js'
import { CLAIM, FIND, FINISH, PRUNE, RELEASE, RENEW, type KeyRow } from './idempotency.queries.js'
import { run } from '../../db/query.js'

/*
 * Retries and idempotency keys (docs/api.md, "Retries and idempotency keys").
 *
 * A change of the kiosk, the booth or staff may carry `Idempotency-Key`. The first request with a key
 * claims it in PostgreSQL (`idempotency_key`, one row per caller and key) and runs; its answer (status,
 * media type, bytes) is stored before it is sent, and every retry of the same request with the same key
 * gets that answer again, marked `Idempotent-Replayed: true`, for 24 hours. Without the header nothing
 * here happens: the routes answer exactly as before.
 *
 * - Scope: a key is the caller's own: the booth key's id, the staff member's id; for the kiosk, which
 *   has no identity, the route and its set (a retry from another network finds its answer), with a key
 *   that must be unguessable (`UNGUESSABLE_KEY`). Two booths or members never meet; a kiosk's key is
 *   never replayed on another route or set.
 * - Fingerprint: the method and the canonical path (dot segments resolved, query sorted) in `request`, and
 *   a SHA-256 of the body as oRPC parsed it (read once here through the lazy `req.body` promise, which
 *   oRPC then awaits again). The same key with another route or another body answers 422 `{ error }`
 *   and does nothing. A body that does not parse (or is over the limit) claims nothing: oRPC answers
 *   its 400 as it would.
 * - A retry arriving while the first is still running waits for its answer, woken at once when the first
 *   runs in this instance and by polling the row (every 100 ms) when in another, for at most 10 s; then it
 *   answers 409 `{ error }` and the client retries later with the same key. It never runs a second time.
 * - The answer is recorded from oRPC's own response (a root interceptor, `storeIdempotentAnswer`), not
 *   from the socket: when the client has gone mid-request, oRPC writes nothing, but the action was taken,
 *   and its retry must get that answer rather than act again. Only successes (2xx) are stored: a refusal
 *   or a fault deletes the row and a retry runs again (a refusal changed nothing, and a kiosk's quotes
 *   what a guest typed); nor answers over 1 MiB or streamed (none today). A stored answer naming a
 *   session deleted since becomes a 410 `gone` (FORGET_SESSIONS).
 * - A row left `running` by a process that died is taken over once its lease (60 s, renewed every 20 s
 *   while its owner runs) has passed, by a retry of the same request, which then runs again. Only the
 *   claim's owner (a random token) may store the answer or give the key up.
 * - Expiry: 24 hours after the claim, by the injected clock (`services.now`). Expired rows are ignored
 *   by every read, replaced by a new claim of the same key, and deleted at start and at most hourly by
 *   the next keyed request.
 */

export const KEY_TTL_MS = 24 * 60 * 60 * 1000
export const LEASE_MS = 60_000
const RENEW_EVERY_MS = 20_000
export const WAIT_MS = 10_000
const POLL_MS = 100
const PRUNE_EVERY_MS = 60 * 60 * 1000
export const MAX_STORED_BODY_BYTES = 1024 * 1024

/** 1 to 255 visible ASCII characters (a UUID, a ULID, any token a client makes). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

export const INVALID_KEY = errorBody('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters')

/**
 * An anonymous caller's key (the kiosk's) is scoped to its route and set, not to its client IP: a
 * retry that leaves over another network (Wi-Fi dropped, LTE took over) must find its first answer.
 * So the key is all that ties a retry to its request, and whoever knows it reads the answer: it must
 * be unguessable, at least 16 characters of which 8 differ (a UUID is 36).
 */
const UNGUESSABLE_KEY = { minLength: 16, minDistinct: 8 }
export const GUESSABLE_KEY = errorBody(
  'guessable_idempotency_key',
  'An Idempotency-Key of a kiosk must be at least 16 characters and unguessable (a UUID): it alone ties a retry to its request',
)
const unguessable = (key: string) => key.length >= UNGUESSABLE_KEY.minLength && new Set(key).size >= UNGUESSABLE_KEY.minDistinct
export const KEY_USED_ON_ANOTHER_ROUTE = errorBody(
  'idempotency_key_reused',
  'This Idempotency-Key was already used for a request to another route: a new request needs a new key',
)
export const KEY_USED_WITH_ANOTHER_BODY = errorBody(
  'idempotency_key_reused',
  'This Idempotency-Key was already used for a request with another body: a new request needs a new key',
)
export const KEY_STILL_RUNNING = errorBody(
  'idempotency_in_flight',
  'A request with this Idempotency-Key is still running: retry later with the same key',
)

/** What oRPC's handler answered (its StandardHandleResult), as far as storing it goes. */
type HandleResult = {
  matched: boolean
  response?: { status: number; headers: Record<string, string | string[] | undefined>; body: unknown }
}

type Claim = {
  /** oRPC's handler has started on the request. */
  reached: boolean
  /** Stores the answer (or gives the key up when it is not to be stored), once. */
  settle(result: HandleResult | undefined): Promise<void>
}

/**
 * The claims in flight, by the request's headers object: oRPC's standard request carries the Node
 * request's own `headers` (standard-server-node's `toStandardLazyRequest`), the one thing the Express
 * middleware and oRPC's interceptor both hold.
 */
const claims = new WeakMap<object, Claim>()

/**
 * oRPC root interceptor (`rootInterceptors` in app.ts): stores a claimed request's answer before it is
 * sent, whether or not the client is still there to receive it.
 */
export async function storeIdempotentAnswer<R extends HandleResult>(options: {
  request: { headers: object }
  next: () => Promise<R>
}): Promise<R> {
  const claim = claims.get(options.request.headers)
  if (!claim) return options.next()
  claim.reached = true
  let result: R | undefined
  try {
    result = await options.next()
    return result
  } finally {
    await claim.settle(result)
  }
}

/**
 * The Express middleware, on the routes `takesIdempotencyKey` names, mounted after the booth and
 * staff authentication (the scope is the caller) and before oRPC. `maxBodyBytes` is oRPC's body limit
 * (app.ts): the body is read here through the same lazy, limited `req.body`.
 */
export function idempotencyKeys(
  services: Pick<Services, 'orm' | 'now' | 'logger' | 'config'>,
  options: { maxBodyBytes: number },
): RequestHandler {
  const { orm, now, logger } = services
  const waiters = new Map<string, Set<() => void>>()
  const wake = (id: string) => [...(waiters.get(id) ?? [])].forEach((wakeUp) => wakeUp())
  const waitFor = (id: string, ms: number) =>
    new Promise<void>((resolve) => {
      const waiting = waiters.get(id) ?? new Set()
      waiters.set(id, waiting)
      const done = () => {
        clearTimeout(timer)
        waiting.delete(done)
        if (waiting.size === 0 && waiters.get(id) === waiting) waiters.delete(id)
        resolve()
      }
      const timer = setTimeout(done, ms)
      waiting.add(done)
    })

  // Expired keys are deleted at start (server.ts, before the app is made), then at most hourly by the
  // next keyed request (awaited there, one statement an hour, so that no prune outlives its server).
  let lastPrune = now().getTime()
  let pruning: Promise<void> | undefined
  const prune = (at: Date) =>
    (pruning ??= (async () => {
      lastPrune = at.getTime()
      try {
        await pruneExpiredKeys(orm.em.fork(), at)
      } catch (error) {
        logger.error('expired idempotency keys could not be pruned', error)
      } finally {
        pruning = undefined
      }
    })())

  const later = (from: Date, ms: number) => new Date(from.getTime() + ms)

  /** Claims the key, or waits for its answer: what this request is to do. */
  async function claimOrWait(em: EntityManager, scope: string, key: string, request: string, bodyHash: string) {
    const id = `${scope}\n${key}`
    const deadline = performance.now() + WAIT_MS
    for (;;) {
      const at = now()
      const owner = randomBytes(16).toString('base64url')
      const claimed = await run(em, CLAIM, [scope, key, owner, request, bodyHash, at, later(at, KEY_TTL_MS), later(at, LEASE_MS)])
      if (claimed.length > 0) return { kind: 'owner', id, owner } as const
      const [row] = await run(em, FIND, [scope, key, at])
      if (row?.request !== undefined && row.request !== request)
        return { kind: 'refused', status: 422, body: KEY_USED_ON_ANOTHER_ROUTE } as const
      if (row !== undefined && row.body_hash !== bodyHash)
        return { kind: 'refused', status: 422, body: KEY_USED_WITH_ANOTHER_BODY } as const
      if (row?.state === 'done') return { kind: 'replay', row } as const
      const left = deadline - performance.now()
      if (left <= 0) return { kind: 'refused', status: 409, body: KEY_STILL_RUNNING } as const
      // Running (or gone between the two statements: then claimed at once).
      if (row !== undefined) await waitFor(id, Math.min(POLL_MS, left))
    }
  }

  function startClaim(em: EntityManager, scope: string, key: string, id: string, owner: string): Claim {
    const renew = setInterval(() => {
      run(em, RENEW, [later(now(), LEASE_MS), scope, key, owner]).catch((error: unknown) =>
        logger.error('idempotency key lease could not be renewed', error),
      )
    }, RENEW_EVERY_MS)
    renew.unref()
    let settled = false
    return {
      reached: false,
      async settle(result) {
        if (settled) return
        settled = true
        clearInterval(renew)
        const answer = result?.matched ? storable(result.response) : undefined
        try {
          if (answer) await run(em, FINISH, [answer.status, answer.contentType ?? null, answer.body, scope, key, owner])
          else await run(em, RELEASE, [scope, key, owner])
        } catch (error) {
          // The answer is still sent; the row stays `running` until its lease passes.
          logger.error('idempotency key could not be settled', error)
        } finally {
          wake(id)
        }
      },
    }
  }

  const guard =
    (scopeOf: (req: Request) => string | undefined, anonymous: boolean): RequestHandler =>
    async (req, res, next) => {
      const key = req.headers['idempotency-key']
      if (key === undefined) return next()
      // Node joins repeated headers with ", ": two keys are not a key.
      if (typeof key !== 'string' || !KEY_PATTERN.test(key)) return sendError(res, 400, INVALID_KEY)
      if (anonymous && !unguessable(key)) return sendError(res, 400, GUESSABLE_KEY)
      const scope = scopeOf(req)
      if (scope === undefined) return next()
      try {
        limitBody(req, res, options.maxBodyBytes)
        let bodyHash: string
        try {
          bodyHash = bodyDigest(await (req as { body?: unknown }).body)
        } catch {
          // Over the limit, not UTF-8, malformed (or a form or a file, which no route takes): oRPC answers
          // the same refusal from the same promise, or the validator's.
          return next()
        }
        const request = `${req.method} ${canonicalTarget(req.originalUrl)}`
        const em = orm.em.fork()
        if (now().getTime() - lastPrune >= PRUNE_EVERY_MS) await prune(now())
        const outcome = await claimOrWait(em, scope, key, request, bodyHash)
        if (outcome.kind === 'refused') return sendError(res, outcome.status, outcome.body)
        if (outcome.kind === 'replay') return replay(res, outcome.row)
        const claim = startClaim(em, scope, key, outcome.id, outcome.owner)
        claims.set(req.headers, claim)
        // Answered by something other than oRPC (none does today): the key is given up.
        res.once('finish', () => void (claim.reached || claim.settle(undefined)))
        next()
      } catch (error) {
        next(error)
      }
    }

  const scopes = {
    // The route and its set, whoever calls (UNGUESSABLE_KEY): never the client IP, which a retry may not keep.
    sets: (req: Request) => `kiosk:${req.method} ${req.path}`,
    booth: (req: Request) => {
      const caller = boothOf(req)
      return caller && `booth:${caller.keyId}`
    },
    staff: (req: Request) => {
      const member = staffOf(req)
      return member && `staff:${member.memberId}`
    },
  }
  // Case-sensitive, as oRPC matches: `/STAFF/events` is no route of oRPC's.
  const router = Router({ caseSensitive: true })
  for (const { method, path } of routesOf(servedContract)) {
    if (!takesIdempotencyKey(method, path)) continue
    const area = path.split('/')[1] as keyof typeof scopes
    router.route(path)[method](guard(scopes[area], area === 'sets'))
  }
  // Only changes take a key: a read passes without walking the keyed routes.
  return (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : router(req, res, next))
}

/** Deletes the keys expired at `at`: at start (server.ts), and hourly from the middleware. */
export async function pruneExpiredKeys(em: EntityManager, at: Date): Promise<void> {
  await run(em, PRUNE, [at])
}

function replay(res: Response, row: KeyRow): void {
  res.status(row.status!)
  res.setHeader(REPLAYED_HEADER, 'true')
  if (row.content_type !== null) res.setHeader('Content-Type', row.content_type)
  res.end(row.body ?? undefined)
}

/** The answer as oRPC's Node adapter will write it (status, media type, bytes), or nothing when it is not to be stored. */
function storable(response: HandleResult['response']): { status: number; contentType?: string; body: Buffer | null } | undefined {
  // Only what acted: a refusal changed nothing, so its retry runs again and answers what holds then;
  // and a kiosk's refusal quotes what a guest typed (a name, a phone), which must not be kept a day.
  if (!response || response.status < 200 || response.status >= 300) return undefined
  const { body } = response
  // Streams, files and forms are not replayable bytes (no route of these answers them).
  const streamed = body instanceof ReadableStream || body instanceof Blob || body instanceof FormData
  if (streamed || (typeof body === 'object' && body !== null && Symbol.asyncIterator in body)) return undefined
  const headers = { ...response.headers }
  const text = toNodeHttpBody(body, headers)
  if (text !== undefined && typeof text !== 'string') return undefined
  const bytes = text === undefined ? null : Buffer.from(text)
  if (bytes !== null && bytes.length > MAX_STORED_BODY_BYTES) return undefined
  const type = headers['content-type']
  return { status: response.status, contentType: Array.isArray(type) ? type[0] : type, body: bytes }
}

/** The path (already canonical: app.ts's canonicalPath) and its query, sorted: `?a=1&b=2` is `?b=2&a=1`. */
function canonicalTarget(target: string): string {
  const url = new URL(target, 'http://localhost')
  url.searchParams.sort()
  return `${url.pathname}${url.search}`
}

/**
 * SHA-256 of the body as parsed, its kind included (URL-encoded form, text or JSON), the keys of JSON
 * objects sorted, so that a retry serialised in another order is the same request. Throws for a body
 * it cannot fingerprint (a form with files, a nesting too deep for JSON.stringify): no key is claimed.
 */
export function bodyDigest(body: unknown): string {
  const hash = createHash('sha256')
  if (body === undefined) hash.update('none')
  else if (body instanceof URLSearchParams) hash.update(`form:${body.toString()}`)
  else if (typeof body === 'string') hash.update(`text:${body}`)
  else if (body instanceof Blob || body instanceof FormData) throw new Fault('not a body these routes take')
  else hash.update(`json:${JSON.stringify(body, sortedKeys)}`)
  return hash.digest('hex')
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
