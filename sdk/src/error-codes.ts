/**
 * The stable `code` of every JSON `{ error }` answer, with its one HTTP status and what it means:
 * the one closed list (the contract's `ErrorCode` zod enum is built from it). Plain data without zod,
 * so that a kiosk app importing it ships no schema library. A code is never renamed or given another
 * meaning; the `error` text beside it may be reworded only where the spec does not fix it.
 */
export const ERROR_CODE_TABLE = {
  // 400: retrying the same request is pointless.
  invalid_input: {
    status: 400,
    meaning:
      "A schema validation failure: the validator's shape, which carries no code on the wire (the SDK gives it this one); `error.message` lists the field errors.",
  },
  invalid_phone: {
    status: 400,
    meaning: 'A phone that is not a phone number. At registration, `field` names the guest (`guests.1.phone`).',
  },
  missing_contact: { status: 400, meaning: 'A guest with neither an email nor a phone. `field` names the guest (`guests.1`).' },
  unknown_privacy_notice: {
    status: 400,
    meaning: "A registration's `privacyNoticeVersion` that the event never published. `field` is `privacyNoticeVersion`.",
  },
  bad_body: { status: 400, meaning: 'A tracking beacon, or a webhook body, that is not what the route takes.' },
  no_such_target: { status: 400, meaning: "A tracking beacon's session or event does not exist." },
  invalid_submission: { status: 400, meaning: 'A contact form body that is not `{ fields }` of strings within the bounds.' },
  unknown_fields: { status: 400, meaning: "Contact form labels that are not the published contact page's." },
  photo_keys_foreign: { status: 400, meaning: 'Completion named photo keys outside the session.' },
  photo_keys_repeated: { status: 400, meaning: 'Completion named a photo key more than once.' },
  invalid_cursor: { status: 400, meaning: "A page's cursor that is not the previous page's `nextCursor`, or that expired." },
  unknown_phone_country: { status: 400, meaning: "An event's phone country with no known numbering plan." },
  invalid_logo: {
    status: 400,
    meaning: "An event's logo that is not a PNG, JPEG or WebP image the service can read, or over 4 megapixels.",
  },
  invalid_name: { status: 400, meaning: 'A booth key name that is not 1 to 100 characters.' },
  weak_password: { status: 400, meaning: 'A password of the wrong length, or too easy to guess.' },
  malformed_authorization: { status: 400, meaning: 'An Authorization header that is not `Bearer <booth key>`.' },
  invalid_idempotency_key: { status: 400, meaning: 'An `Idempotency-Key` that is not 1 to 255 visible ASCII characters.' },
  guessable_idempotency_key: {
    status: 400,
    meaning: "A kiosk's `Idempotency-Key` shorter than 16 characters or too regular: send a UUID.",
  },
  body_too_large: { status: 400, meaning: "A body over the route's byte limit (the contact form's is a 413)." },
  not_utf8: { status: 400, meaning: 'A text body whose bytes are not UTF-8.' },
  malformed_request: {
    status: 400,
    meaning: 'A request the HTTP layer could not read (bad framing, a bad path encoding, a refused body).',
  },
  bad_request: {
    status: 400,
    meaning: "Refused for another reason: Better Auth's sign-in and password routes (a missing field, a wrong current password).",
  },
  // 401, 403
  unauthorized: {
    status: 401,
    meaning:
      "No staff session, no or wrong credentials (the booth's bearer failures are the plain text `Unauthorized`, without a code on the wire; the SDK names it so).",
  },
  code_already_used: {
    status: 401,
    meaning: 'A second-factor code the member already used: each is accepted once (RFC 6238); the next one the app shows works.',
  },
  forbidden: { status: 403, meaning: 'Refused for this caller (a webhook without its signature, a sign-in refusal).' },
  insufficient_role: { status: 403, meaning: "The staff member's role is below what the route or the change needs. Nothing changed." },
  untrusted_origin: { status: 403, meaning: 'A staff change without an `Origin` (or `Referer`) that the service trusts. Nothing changed.' },
  password_change_required: { status: 403, meaning: 'The member must first change the password they were invited with.' },
  two_factor_required: { status: 403, meaning: 'The team requires a second factor and the member has none yet.' },
  // 404
  not_found: { status: 404, meaning: 'No such route (or `OPTIONS` on any path), or a file that is not there.' },
  no_such_set: { status: 404, meaning: 'No such set (or no such event for the kiosk slugs).' },
  no_such_event: { status: 404, meaning: 'No such event, or a private event on the public event page.' },
  no_such_session: { status: 404, meaning: "No such session (or not one the booth key's events hold)." },
  no_such_gallery: { status: 404, meaning: 'No such gallery, or not live yet (active, cancelled, or without photos).' },
  no_such_message: { status: 404, meaning: 'No such gallery-link message.' },
  no_such_booth_key: { status: 404, meaning: 'No such booth key.' },
  no_such_member: { status: 404, meaning: 'No such staff member.' },
  no_such_person: { status: 404, meaning: 'No such person (customer).' },
  no_such_guest: { status: 404, meaning: 'No such guest (a guest row of a session).' },
  gone: {
    status: 410,
    meaning:
      'A replay (the same `Idempotency-Key`) of a request whose session was deleted since, by staff, the retention purge or a guest’s erasure: nothing is made again. An offline queue drops the call.',
  },
  not_suppressed: { status: 404, meaning: 'The address is not on the suppression list.' },
  // 409
  session_not_active: { status: 409, meaning: 'The session is already completed or cancelled, or was concurrently: re-read the queue.' },
  session_not_live: { status: 409, meaning: 'The session is not a live gallery (no links to send).' },
  session_claimed: {
    status: 409,
    meaning: 'Another booth holds the session (its claim, until `expiresAt`): take the next one of the queue instead.',
  },
  concurrent_change: {
    status: 409,
    meaning: 'Another change got there first (the same contacts being saved, a role changed meanwhile): try again.',
  },
  slug_taken: { status: 409, meaning: 'An event or set with that slug already exists.' },
  active_sessions: { status: 409, meaning: 'Active sessions are in the way: pass `force=true` to delete anyway.' },
  message_already_queued: { status: 409, meaning: 'A message to this guest on this channel is already waiting to be sent.' },
  message_not_failed: { status: 409, meaning: 'Only a failed message can be retried.' },
  email_taken: { status: 409, meaning: 'A staff member with this email already exists.' },
  last_owner: { status: 409, meaning: 'The change would leave the team without an owner.' },
  cannot_remove_self: { status: 409, meaning: 'A member cannot remove themselves.' },
  own_two_factor_required: { status: 409, meaning: 'Requiring a second factor of the team needs one of your own first.' },
  conflict: { status: 409, meaning: 'A conflict with the current state that no more precise code names.' },
  idempotency_in_flight: {
    status: 409,
    meaning: 'The first request with this `Idempotency-Key` is still running: retry later with the same key.',
  },
  // 413, 415, 422, 429, 431
  payload_too_large: { status: 413, meaning: "A body over the route's limit (the contact form's 16 KB: `Message too long`)." },
  unsupported_media_type: { status: 415, meaning: 'A body of a media type the route does not take, or without one. Nothing changed.' },
  photo_keys_missing: { status: 422, meaning: 'Photo keys not in storage: `missing` lists them. Nothing was written.' },
  photos_not_jpeg: { status: 422, meaning: 'Uploads that are not JPEG images: `notJpeg` lists them. Nothing was written.' },
  idempotency_key_reused: {
    status: 422,
    meaning: 'This `Idempotency-Key` was used for another route or body: a new request needs a new key.',
  },
  rate_limited: { status: 429, meaning: 'Over the rate limit for this client IP: wait a minute (no Retry-After).' },
  headers_too_large: { status: 431, meaning: "The request's headers are too large." },
  request_timeout: { status: 408, meaning: 'The request was not received in time.' },
  expectation_failed: { status: 417, meaning: 'An `Expect` header other than `100-continue`.' },
  // 5xx
  internal: { status: 500, meaning: 'A fault of the service; nothing about it is disclosed. Retry with backoff.' },
  bad_gateway: { status: 502, meaning: 'An upstream answered badly.' },
  mail_refused: { status: 502, meaning: 'The mail provider refused the message.' },
  database_unavailable: { status: 503, meaning: 'The database is away: retry after `Retry-After` seconds.' },
  storage_unavailable: { status: 503, meaning: 'Photo storage is away: retry after `Retry-After` seconds.' },
  storage_not_configured: { status: 503, meaning: 'This deployment has no photo storage.' },
  mail_not_configured: { status: 503, meaning: 'This deployment has no mail provider.' },
  contact_form_unavailable: { status: 503, meaning: 'The published contact page could not be read.' },
  service_unavailable: { status: 503, meaning: 'Unavailable for a reason no more precise code names.' },
  not_ready: { status: 503, meaning: 'The readiness probe: the instance is not ready (starting, draining, or a dependency away).' },
} as const satisfies Record<string, { status: number; meaning: string }>

/** A stable, lower_snake error code: `error.data.code` in the SDK, `code` in the body. */
export type ErrorCode = keyof typeof ERROR_CODE_TABLE

/** Every code, in the table's order. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODE_TABLE) as [ErrorCode, ...ErrorCode[]]

/** The code an answer of this status gets when nothing more precise is known (a parser's refusal, a proxied answer). */
export function genericErrorCode(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'unauthorized'
    case 403:
      return 'forbidden'
    case 404:
      return 'not_found'
    case 408:
      return 'request_timeout'
    case 413:
      return 'payload_too_large'
    case 415:
      return 'unsupported_media_type'
    case 417:
      return 'expectation_failed'
    case 429:
      return 'rate_limited'
    case 431:
      return 'headers_too_large'
    case 400:
      return 'bad_request'
    case 409:
      return 'conflict'
    case 502:
      return 'bad_gateway'
    case 503:
      return 'service_unavailable'
    default:
      return status >= 500 ? 'internal' : 'bad_request'
  }
}

/** Whether a value is one of the codes (an older server's answer has none). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODE_TABLE, value)
}
