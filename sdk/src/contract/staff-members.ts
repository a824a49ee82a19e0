import type { OpenAPI } from '@orpc/contract'
import { z } from 'zod'

import { EXAMPLE_IDS, EXAMPLE_MEMBER } from '../schemas/examples.js'
import {
  CurrentSession,
  InvitedStaffMember,
  NewStaffMember,
  PasswordChange,
  PasswordChanged,
  RoleChange,
  TeamSettings,
  TwoFactorCode,
  TwoFactorDone,
  TwoFactorEnabling,
  TwoFactorPassword,
  SignedIn,
  SignIn,
  StaffMember,
} from '../schemas/staff.js'
import {
  badRequestOf,
  base,
  conflictOf,
  ErrorRef,
  notFoundOf,
  pathKey,
  rateLimited,
  staffChange,
  staffRead,
  staffWrite,
  withCodes,
} from './base.js'

const tags = ['Staff']

export const staffMembers = {
  me: staffRead
    .route({ method: 'GET', path: '/staff/me', operationId: 'getCurrentStaffMember', summary: 'The staff member signed in', tags })
    .meta({ role: 'staff' })
    .output(StaffMember),

  list: staffRead
    .route({ method: 'GET', path: '/staff/members', operationId: 'listStaffMembers', summary: 'Every staff member, oldest first', tags })
    .meta({ role: 'owner' })
    .output(z.object({ members: z.array(StaffMember) }).meta({ examples: [{ members: [EXAMPLE_MEMBER] }] })),

  invite: staffWrite
    .route({
      method: 'POST',
      path: '/staff/members',
      operationId: 'inviteStaffMember',
      summary: 'Add a staff member who signs in with this email and a password',
      description:
        'Without a `password`, a one-time password is made and answered once: hand it over, and the new member changes it (`POST /api/auth/change-password`). An email that a member has answers 409.',
      tags,
      successStatus: 201,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors({ ...badRequestOf('weak_password'), ...conflictOf('email_taken') })
    .meta({ secretAnswer: true })
    .input(z.object({ body: NewStaffMember }))
    .output(InvitedStaffMember),

  remove: staffChange
    .route({
      method: 'DELETE',
      path: '/staff/members/{memberId}',
      operationId: 'removeStaffMember',
      summary: 'Remove a staff member; their sessions end at once',
      description: 'Removing yourself answers 409: another member must do it.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors({ ...notFoundOf('no_such_member'), ...conflictOf('cannot_remove_self', 'last_owner', 'concurrent_change') })
    .input(z.object({ params: z.object({ memberId: pathKey(EXAMPLE_IDS.member) }) }))
    .output(z.object({ removed: z.string() }).meta({ examples: [{ removed: EXAMPLE_IDS.member }] })),

  getTeam: staffRead
    .route({ method: 'GET', path: '/staff/team', operationId: 'getTeamSettings', summary: "The team's rules", tags })
    .meta({ role: 'owner' })
    .output(TeamSettings),

  updateTeam: staffChange
    .route({
      method: 'PATCH',
      path: '/staff/team',
      operationId: 'updateTeamSettings',
      summary: "Change the team's rules: require a second factor of every member",
      description: 'Requiring it needs the owner to have one first (409 otherwise): nobody is locked out by it.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors(conflictOf('own_two_factor_required'))
    .input(z.object({ body: TeamSettings }))
    .output(TeamSettings),

  setRole: staffChange
    .route({
      method: 'PATCH',
      path: '/staff/members/{memberId}',
      operationId: 'setStaffRole',
      summary: "Change a staff member's role",
      description:
        'Owners only. The last owner cannot be made anything else (409): there is always someone who can manage the team. An owner who has lost every owner can be restored with `pnpm admin staff set-role --email <email> --role owner`.',
      tags,
      inputStructure: 'detailed',
    })
    .meta({ role: 'owner' })
    .errors({ ...notFoundOf('no_such_member'), ...conflictOf('last_owner', 'concurrent_change') })
    .input(z.object({ params: z.object({ memberId: pathKey(EXAMPLE_IDS.member) }), body: RoleChange }))
    .output(StaffMember),
}

const authTags = ['Staff sign-in']
/** Better Auth's refusals, declared so that clients can tell them: a wrong password, an untrusted origin. */
const signInRefusals = {
  UNAUTHORIZED: { status: 401, message: 'Invalid email or password' },
  FORBIDDEN: { status: 403, message: 'Origin not trusted' },
} as const
const AUTH_REFUSALS: OpenAPI.ResponsesObject = {
  '401': {
    description: 'Wrong email or password: `{ "error": "Invalid email or password" }`.',
    content: { 'application/json': { schema: ErrorRef } },
  },
  '403': {
    description: 'A cookie-carrying request from an untrusted or missing origin: `{ error }`.',
    content: { 'application/json': { schema: ErrorRef } },
  },
}

/** Better Auth's two-factor routes: JSON in, `{ error }` out, limited as sign-in is (guessing codes). */
const twoFactorRoute = ({
  path,
  operationId,
  summary,
  description,
}: {
  path: `/${string}`
  operationId: string
  summary: string
  description?: string
}) =>
  base
    .route({
      method: 'POST',
      path,
      operationId,
      summary,
      ...(description ? { description } : {}),
      tags: authTags,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: {
          ...operation.responses,
          '401': {
            description: 'No staff session (nor a pending sign-in), or a wrong code: `{ error }`.',
            content: { 'application/json': { schema: ErrorRef } },
          },
          '403': AUTH_REFUSALS['403']!,
        },
      }),
    })
    .meta({ rateLimit: { bucket: 'two-factor', perMinute: 10 } })
    .errors({ UNAUTHORIZED: { status: 401, message: 'Invalid code' }, FORBIDDEN: signInRefusals.FORBIDDEN, ...rateLimited })

/**
 * Better Auth answers these: its own handler (server/src/modules/staff/auth.routes.ts), and its API for
 * the current session (auth.router.ts, served by oRPC); the document and the SDK describe them.
 */
export const staffAuth = {
  signIn: base
    .route({
      method: 'POST',
      path: '/api/auth/sign-in/email',
      operationId: 'signIn',
      summary: 'Sign in as a staff member: the answer sets the session cookie',
      description:
        'The cookie `photobooth.session_token` (`__Secure-photobooth.session_token` in production) is HttpOnly, SameSite=Lax, Secure in production, and lasts 7 days, renewed by use at most daily. Send it with every /staff request. Rate limited to 10 per minute per client IP.',
      tags: authTags,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: {
          ...operation.responses,
          '200': { ...operation.responses?.['200'], description: 'Signed in; `Set-Cookie` carries the session' } as OpenAPI.ResponseObject,
          ...AUTH_REFUSALS,
        },
      }),
    })
    // Its limit covers every /api/auth/sign-in/* path, so it is mounted on that pattern (server/src/app.ts), not from here.
    .errors({ ...rateLimited, ...signInRefusals })
    .input(z.object({ body: SignIn }))
    .output(SignedIn),

  signOut: base
    .route({
      method: 'POST',
      path: '/api/auth/sign-out',
      operationId: 'signOut',
      summary: 'End this staff session: the cookie is cleared and the session no longer works anywhere',
      tags: authTags,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: { ...operation.responses, '403': AUTH_REFUSALS['403']! },
      }),
    })
    .errors({ FORBIDDEN: signInRefusals.FORBIDDEN })
    .output(z.object({ success: z.boolean() }).meta({ examples: [{ success: true }] })),

  changePassword: base
    .route({
      method: 'POST',
      path: '/api/auth/change-password',
      operationId: 'changePassword',
      summary: "Change the signed-in member's password (a one-time password first of all)",
      description:
        'A wrong `currentPassword` answers 400 `{ "error": "Invalid password" }`; a `newPassword` too easy to guess (zxcvbn, offline: common and leaked passwords, words, keyboard runs) 400 with the reason. Rate limited to 10 per minute per client IP. A member invited with a password someone else chose must do this before any other staff route (403 until then). Every other session of the member ends (`revokeOtherSessions` is always true).',
      tags: authTags,
      inputStructure: 'detailed',
      spec: (operation: OpenAPI.OperationObject): OpenAPI.OperationObject => ({
        ...operation,
        responses: {
          ...operation.responses,
          '401': { description: 'No staff session: `{ error }`.', content: { 'application/json': { schema: ErrorRef } } },
          '403': AUTH_REFUSALS['403']!,
        },
      }),
    })
    // Guessing the current password through a stolen session is limited as sign-in is.
    .meta({ rateLimit: { bucket: 'change-password', perMinute: 10 } })
    .errors({
      ...badRequestOf('weak_password'),
      UNAUTHORIZED: { status: 401, message: 'Staff sign-in required' },
      FORBIDDEN: signInRefusals.FORBIDDEN,
      ...rateLimited,
    })
    .input(z.object({ body: PasswordChange }))
    .output(PasswordChanged),

  enableTwoFactor: twoFactorRoute({
    path: '/api/auth/two-factor/enable',
    operationId: 'enableTwoFactor',
    summary: 'Start setting up a second factor: an authenticator app (TOTP) and backup codes',
    description:
      "With the member's password. Confirm it with a first code at `POST /api/auth/two-factor/verify-totp`; until then sign-in does not ask for it. A wrong password answers 400 `{ error }`; a member who has not yet changed the password they were invited with, 403 (`password_change_required`).",
  })
    .errors({ FORBIDDEN: withCodes(signInRefusals.FORBIDDEN, 'password_change_required') })
    .input(z.object({ body: TwoFactorPassword }))
    .output(TwoFactorEnabling),

  verifyTotp: twoFactorRoute({
    path: '/api/auth/two-factor/verify-totp',
    operationId: 'verifyTotp',
    summary: 'A code from the authenticator app: completes a sign-in that asked for it, or confirms the set-up',
    description:
      'After a sign-in answered `twoFactorRedirect`, with the cookie it set: the answer sets the session cookie. Signed in, it confirms the set-up. A wrong code answers 401 `{ error }`; so does a code the member already used (`code_already_used`: each is accepted once).',
  })
    .errors({ UNAUTHORIZED: withCodes({ status: 401, message: 'Invalid code' }, 'code_already_used') })
    .input(z.object({ body: TwoFactorCode }))
    .output(TwoFactorDone),

  verifyBackupCode: twoFactorRoute({
    path: '/api/auth/two-factor/verify-backup-code',
    operationId: 'verifyBackupCode',
    summary: 'A backup code instead of the app: completes the sign-in, and the code is spent',
  })
    .input(z.object({ body: TwoFactorCode }))
    .output(TwoFactorDone),

  disableTwoFactor: twoFactorRoute({
    path: '/api/auth/two-factor/disable',
    operationId: 'disableTwoFactor',
    summary: 'Remove the second factor (with the password)',
  })
    .input(z.object({ body: TwoFactorPassword }))
    .output(TwoFactorDone),

  getSession: base
    .route({
      method: 'GET',
      path: '/api/auth/get-session',
      operationId: 'getSignedInSession',
      summary: 'The current staff session and member, or null when signed out',
      tags: authTags,
    })
    .output(CurrentSession),
}
