import { createHash } from 'node:crypto'

import { contract, ERROR_CODE_TABLE, genericErrorCode, servedContract, type ErrorCode } from '@photobooth/sdk/contract'
import { fromNodeHeaders } from 'better-auth/node'
import { Router, type Request, type RequestHandler, type Response } from 'express'

import type { Services } from '../../context.js'
import { errorBody, type ErrorAnswer } from '../../errors.js'
import { NOT_FOUND_BODY, sendError } from '../../http/answers.js'
import { isText, NOT_UTF8, readLimited } from '../../http/body-limit.js'
import { expressPath } from '../../http/edge.js'
import { weakPasswordReason } from './password-strength.js'
import { roleOf, type StaffRole } from './roles.js'
import { CHANGE_PASSWORD_FIRST } from './staff-auth.middleware.js'
import { MEMBER_BY_EMAIL, type MemberRow } from './staff.queries.js'
import { USED_TOTP_QUERIES } from './used-totp.queries.js'
import { run } from '../../db/query.js'

/** A sign-in is an address and a password: a few hundred bytes. */
const MAX_AUTH_BODY_BYTES = 16 * 1024

/** Where a step of signing in is recorded (the audit trail's `auditSignIn`, given by app.ts: staff does not import audit). */
export type SignInRecorder = (
  req: Request,
  res: Response,
  member: { memberId: string; role: StaffRole },
  action: string,
  targets: Record<string, string>,
) => void

type AuthServices = Pick<Services, 'auth' | 'config' | 'orm'> & { recordSignIn: SignInRecorder }

/**
 * Better Auth's routes that the contract lists (`staff.auth`: sign-in, sign-out, change of password,
 * the current session), and no other: the rest of what it could answer (its health check, account
 * linking, session listing…) is the plain 404 of any unknown path.
 */
export function authRoutes(services: AuthServices): Router {
  const router = Router()
  const handler = answerWithBetterAuth(services)
  // What the served contract holds of staff.auth (the current session: auth.router.ts) oRPC answers.
  const servedByORPC = new Set<unknown>(Object.values(servedContract.staff.auth))
  for (const procedure of Object.values(contract.staff.auth).filter((procedure) => !servedByORPC.has(procedure))) {
    const method = procedure['~orpc'].route.method === 'GET' ? 'get' : 'post'
    router[method](expressPath(procedure), handler)
  }
  return router
}

/**
 * Better Auth answers through this adapter rather than its own Node handler so that its refusals
 * take the service's shape (`{ error }` for its `{ message, code }`), the body is bounded like every
 * other, and the session token never appears in a body that a page's script can read: the HttpOnly
 * cookie is the only copy.
 */
function answerWithBetterAuth(services: AuthServices): RequestHandler {
  const { auth, config, orm } = services
  return async (req, res, next) => {
    try {
      let body: Buffer | undefined
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const raw = await readLimited(req, MAX_AUTH_BODY_BYTES)
        if (raw === 'too large') {
          res.setHeader('Connection', 'close')
          return sendError(res, 400, errorBody('body_too_large', `Request body too large: at most ${MAX_AUTH_BODY_BYTES} bytes`))
        }
        if (!isText(req.headers['content-type'], raw)) return sendError(res, 400, errorBody('not_utf8', NOT_UTF8))
        body = raw
      }
      const changingPassword = req.path === expressPath(contract.staff.auth.changePassword)
      if (changingPassword) {
        const weak = weakNewPassword(body)
        if (weak) return sendError(res, 400, errorBody('weak_password', weak))
        body = revokingOtherSessions(body)
      }
      // A password someone else chose (an invitation's) must not be what guards a second factor either.
      if (req.path === expressPath(contract.staff.auth.enableTwoFactor)) {
        const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) })
        if (session?.user.mustChangePassword === true) return sendError(res, 403, CHANGE_PASSWORD_FIRST)
      }
      // Better Auth's own address, never the Host header a client chose.
      const request = new globalThis.Request(`${config.publicUrl}${req.originalUrl}`, {
        // A HEAD is asked as its GET (Better Auth routes no HEAD); Node leaves the body out of the answer.
        method: req.method === 'HEAD' ? 'GET' : req.method,
        headers: fromNodeHeaders(req.headers),
        body: body && body.length > 0 ? body : undefined,
      })
      const response = await auth.handler(request)
      const reused =
        req.path === expressPath(contract.staff.auth.verifyTotp) && response.ok && !(await firstUseOfCode(auth, orm, body, response))
      await auditSigningIn(services, req, res, body, reused ? 401 : response)
      if (reused) return sendError(res, 401, CODE_USED)
      await answer(res, changingPassword && response.ok ? await passwordChanged(auth, response) : response)
    } catch (error) {
      next(error)
    }
  }
}

/**
 * A change of password ends every other session of the member, whatever the client asked: whoever
 * knew the old one (the reason to change it, often) is signed out everywhere at once.
 */
function revokingOtherSessions(body: Buffer | undefined): Buffer | undefined {
  const json = parseJson(body?.toString('utf8') ?? '')
  // Only a change that could happen: any other body goes to Better Auth as sent, for its own refusal.
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !('newPassword' in json)) return body
  return Buffer.from(JSON.stringify({ ...json, revokeOtherSessions: true }))
}

const CODE_USED = errorBody('code_already_used', 'This code was already used: enter the next one your app shows')

/**
 * Whether the code Better Auth just accepted is the member's first use of it (RFC 6238 §5.2: a
 * verifier must not accept a code twice). A second use is refused after the fact: the session Better
 * Auth made for it is deleted at once, and its cookie is never sent.
 */
async function firstUseOfCode(
  auth: Services['auth'],
  orm: Services['orm'],
  body: Buffer | undefined,
  response: globalThis.Response,
): Promise<boolean> {
  const { code } = (parseJson(body?.toString('utf8') ?? '') ?? {}) as { code?: unknown }
  const { user } = ((await response
    .clone()
    .json()
    .catch(() => undefined)) ?? {}) as { user?: { id?: unknown } }
  if (typeof code !== 'string' || typeof user?.id !== 'string') return true
  const codeHash = createHash('sha256').update(`${user.id}:${code}`).digest('base64url')
  const recorded = await run(orm.em.fork(), USED_TOTP_QUERIES.record, [user.id, user.id, codeHash])
  if (recorded.length > 0) return true
  const ctx = await auth.$context
  for (const cookie of response.headers.getSetCookie()) {
    const token = new RegExp(`^${ctx.authCookies.sessionToken.name}=([^.;]+)`).exec(cookie)?.[1]
    if (token) await ctx.internalAdapter.deleteSession(decodeURIComponent(token))
  }
  return false
}

const SIGN_IN_STEPS = new Map(
  [contract.staff.auth.signIn, contract.staff.auth.verifyTotp, contract.staff.auth.verifyBackupCode].map((procedure) => [
    expressPath(procedure),
    procedure['~orpc'].route.operationId!,
  ]),
)

/**
 * Puts a step of signing in in the audit trail, with its member when known: a password tried for a
 * member's address (right or wrong), and a second factor that completes a sign-in (a member already
 * signed in confirming a set-up is `accountAuditTrail`'s). A wrong second factor names no member
 * here: Better Auth's pending sign-in is its own. An address no member has is not recorded (the
 * request log and the rate limiter see it).
 */
async function auditSigningIn(
  services: AuthServices,
  req: Request,
  res: Response,
  body: Buffer | undefined,
  response: globalThis.Response | 401,
): Promise<void> {
  const action = req.method === 'POST' ? SIGN_IN_STEPS.get(req.path) : undefined
  if (!action) return
  const json =
    response === 401
      ? undefined
      : ((await response
          .clone()
          .json()
          .catch(() => undefined)) as Record<string, unknown> | undefined)
  let member: MemberRow | undefined
  if (action === 'signIn') {
    const { email } = (parseJson(body?.toString('utf8') ?? '') ?? {}) as { email?: unknown }
    if (typeof email === 'string') [member] = await run(services.orm.em.fork(), MEMBER_BY_EMAIL, [email])
  } else {
    const signedIn = (req.headers.cookie ?? '').includes((await services.auth.$context).authCookies.sessionToken.name)
    const user = json?.user as { id?: unknown; role?: unknown } | undefined
    if (!signedIn && typeof user?.id === 'string') member = { id: user.id, role: typeof user.role === 'string' ? user.role : null }
  }
  if (!member) return
  const targets: Record<string, string> = json?.twoFactorRedirect === true ? { secondFactor: 'asked' } : {}
  services.recordSignIn(req, res, { memberId: member.id, role: roleOf(member.role) }, action, targets)
}

/** The new password of a change, when it is too easy to guess (the same rule as for invitations). */
function weakNewPassword(body: Buffer | undefined): string | undefined {
  const { newPassword } = (parseJson(body?.toString('utf8') ?? '') ?? {}) as { newPassword?: unknown }
  return typeof newPassword === 'string' ? weakPasswordReason(newPassword) : undefined
}

/**
 * The member has a password of their own now: an invitation's no longer holds them back. The answer
 * says so too (Better Auth's user was read before the flag was cleared).
 */
async function passwordChanged(auth: Services['auth'], response: globalThis.Response): Promise<globalThis.Response> {
  const json = ((await response.json().catch(() => undefined)) ?? {}) as { user?: { id?: unknown } & Record<string, unknown> }
  const { user } = json
  if (typeof user?.id !== 'string') return new globalThis.Response(JSON.stringify(json), response)
  await (await auth.$context).internalAdapter.updateUser(user.id, { mustChangePassword: false })
  return new globalThis.Response(JSON.stringify({ ...json, user: { ...user, mustChangePassword: false } }), response)
}

async function answer(res: Response, response: globalThis.Response): Promise<void> {
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie' && name !== 'content-length') res.setHeader(name, value)
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) res.setHeader('set-cookie', cookies)
  const text = await response.text()
  if (response.status >= 400) return sendError(res, response.status, betterAuthErrorBody(response.status, text))
  const json = parseJson(text)
  if (json === undefined) return void res.status(response.status).send(text)
  res.status(response.status).json(withoutTokens(json))
}

/** Better Auth's codes that mean one of ours; any other of its refusals gets its status's generic code. */
const BETTER_AUTH_CODES: Record<string, ErrorCode> = { INVALID_ORIGIN: 'untrusted_origin', MISSING_OR_NULL_ORIGIN: 'untrusted_origin' }

/** Better Auth's `{ message, code }` as the service's `{ error, code }`. */
function betterAuthErrorBody(status: number, text: string): ErrorAnswer {
  const json = parseJson(text) as { message?: unknown; code?: unknown } | undefined
  const own = typeof json?.code === 'string' ? BETTER_AUTH_CODES[json.code] : undefined
  const code = own !== undefined && ERROR_CODE_TABLE[own].status === status ? own : genericErrorCode(status)
  if (typeof json?.message === 'string' && json.message) return errorBody(code, json.message)
  if (typeof json?.code === 'string' && json.code) return errorBody(code, json.code)
  return status === 404 ? NOT_FOUND_BODY : errorBody(code, text || `Request refused (${status})`)
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined
  } catch {
    return undefined
  }
}

/** The sign-in answer's `token` and the session's `token`: the cookie carries the session, nothing else does. */
export function withoutTokens(json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json
  const { token: _token, ...rest } = json as Record<string, unknown>
  const session = rest.session
  if (session !== null && typeof session === 'object') {
    const { token: _sessionToken, ...sessionRest } = session as Record<string, unknown>
    rest.session = sessionRest
  }
  return rest
}
