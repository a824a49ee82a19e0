/**
 * Every failure in words a member of staff can act on, from the answer's stable `code` (docs/api.md,
 * "Error codes"): the API's own text where it is already the best words (it names the field or the
 * reason), ours where a code means something to do.
 */
import { ApiError, errorCodeOf, NetworkError, TimeoutError, type ErrorCode } from '@photobooth/sdk/staff'

export function errorCode(error: unknown): ErrorCode | undefined {
  return errorCodeOf(error)
}

/** Typed by the closed list of codes: a code renamed in the contract breaks this build. */
const WORDS: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'You are signed out. Sign in again to go on.',
  insufficient_role: 'Your role does not allow this. Ask an owner of the team.',
  untrusted_origin: 'The service refused a change from this page’s address. Open the console from the service’s own address.',
  password_change_required: 'Choose a password of your own first.',
  two_factor_required: 'The team requires a second factor: set one up first.',
  slug_taken: 'That web address is already taken here: choose another.',
  active_sessions: 'Guests are still being photographed (an active session).',
  session_not_active: 'The session is no longer active: someone finished or cancelled it meanwhile.',
  session_not_live: 'This gallery is not live yet: there is nothing to send until the booth completes it with photos.',
  message_already_queued: 'A message to this guest is already waiting to be sent.',
  message_not_failed: 'Only a failed message can be tried again.',
  concurrent_change: 'Someone else changed this at the same moment. Try again.',
  no_such_event: 'This event no longer exists.',
  no_such_set: 'This set no longer exists.',
  no_such_session: 'This session no longer exists.',
  no_such_message: 'This message no longer exists.',
  no_such_booth_key: 'This booth key no longer exists.',
  no_such_member: 'This member is no longer on the team.',
  no_such_person: 'Nobody with these details is stored (already erased?).',
  not_suppressed: 'This address is not on the suppression list.',
  email_taken: 'A member of the team already has this email.',
  last_owner: 'The team must keep an owner: make someone else an owner first.',
  cannot_remove_self: 'You cannot remove yourself: another owner must do it.',
  own_two_factor_required: 'Set up your own second factor before requiring one of the team.',
  rate_limited: 'Too many tries in a minute. Wait a minute and try again.',
  database_unavailable: 'The service’s database is not answering. Try again in a moment.',
  storage_unavailable: 'Photo storage is not answering. Try again in a moment.',
  service_unavailable: 'The service is unavailable. Try again in a moment.',
  internal: 'The service failed. Try again; if it keeps failing, tell whoever runs it.',
}

/** The words for a failure, never empty: a code we know, the API's own text, or what happened on the way. */
export function errorText(error: unknown, overrides: Partial<Record<ErrorCode, string>> = {}): string {
  if (error instanceof TimeoutError) return 'The service took too long to answer. Check the connection and try again.'
  if (error instanceof NetworkError) return 'The service cannot be reached. Check the connection and try again.'
  const code = errorCodeOf(error)
  if (code && overrides[code]) return overrides[code]
  if (code === 'invalid_input') return issuesOf(error) ?? 'Some fields are not right: check them.'
  // These carry the reason itself (which password rule, which field), in the API's words.
  if (code === 'weak_password' || code === 'bad_request' || code === 'unknown_phone_country' || code === 'invalid_cursor')
    return (error as Error).message
  if (code && WORDS[code]) return WORDS[code]
  if (error instanceof Error && error.message) return error.message
  return 'Something went wrong. Try again.'
}

/** A schema failure's field errors, as "Field: message" lines. */
function issuesOf(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined
  const issues = (error.data as { issues?: { path: (string | number)[]; message: string }[] } | undefined)?.issues
  if (!issues?.length) return undefined
  return issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('. ')
}
