/**
 * The requests the fuzzer sends: derived from the operations of openapi/openapi.json (method, path
 * template, path and query parameters, body schema, security) and mutated: wrong types, missing
 * and extra fields, strings up to 1 MB, NUL, lone surrogates, odd unicode, wrong or missing content
 * types, broken JSON, JSON arrays, bodies over the limits with and without a Content-Length,
 * unrouted paths and methods, dot segments and bad %-escapes, odd and invalid client-IP headers,
 * missing, wrong and tampered booth keys and staff session cookies, foreign origins, and requests
 * no client sends (raw spaces, bad header bytes, CONNECT, odd versions and framings).
 */
import fc from 'fast-check'

import { operations, resolveSchema, type Operation, type Schema } from './openapi.js'
import type { RefName } from './protocol.js'
import { CLIENT_IP_HEADER } from './service.js'
import { bytes, percentEncode, ref, repeat } from './text.js'
import { FRAMINGS, type Framing } from './wire.js'
import { basic, POSTMARK_WEBHOOK } from '../support/webhooks.js'

/** A body: JSON (strings may hold placeholders; `cut` characters dropped from the end: broken JSON), or text. */
export type Body = { json: unknown; cut: number } | { text: string }

/** One generated request, as fast-check prints it in a counterexample. Strings hold placeholders (text.ts). */
export type FuzzCase = {
  /** The operation it was derived from, or `unrouted`. */
  from: string
  /** `http`: through `http.request` when it can express the request, else raw; `raw`: byte for byte. */
  via: 'http' | 'raw'
  method: string
  target: string
  version: string
  headers: [string, string][]
  body: Body | null
  framing: Framing
  headEncoding: 'utf8' | 'latin1'
  /** After the answer, ask `HEAD /openapi.json` on the same connection (the server must read this request to its end first). */
  probe: boolean
}

/** Shrinking may switch to the first (plainest) option of a choice: a counterexample loses what is not needed. */
const SHRINK_ACROSS = { withCrossShrink: true }

// ---------------------------------------------------------------------------------------------
// Strings

/** Characters that break things: controls, NUL, lone surrogates, invisible and bidi marks, combining marks, emoji, URL syntax. */
const oddChar: fc.Arbitrary<string> = fc.oneof(
  SHRINK_ACROSS,
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '\0',
      '\u0001',
      '\t',
      '\n',
      '\r',
      '\u001b',
      '\u001f',
      '\u007f',
      '\u0080',
      '\u0085',
      '\u009f',
      '\u00a0',
      '\u00ad',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '\ud800',
      '\udbff',
      '\udc00',
      '\udfff',
      '\ufffe',
      '\uffff',
      '\ufeff',
      '\ufffd',
      '\u200b',
      '\u200d',
      '\u202e',
      '\u2028',
      '\u2029',
      '\u{10ffff}',
      '\u{e0041}',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom('é', 'e\u0301', 'ß', 'İ', 'ﬃ', 'Ω', '한', '中', '😀', '👩‍👩‍👧', '🏳️‍🌈', 'ẞ', 'ǅ', 'Ⅻ', '١', '\u0661') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%',
      '%00',
      '%2e',
      '%2f',
      '%5c',
      '%zz',
      '%E0%A4%A',
      '/',
      '\\',
      '.',
      '..',
      '?',
      '#',
      '&',
      '=',
      '+',
      ' ',
      '"',
      "'",
      '<',
      '>',
      '{',
      '}',
      '$',
      '`',
      ';',
      ',',
      '*',
      ':',
      '@',
    ),
  },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
)

/** Sizes near the limits: 200 (path segments), 4 KB (beacons), 16 KB (contact), 64 KB (bodies), up to 1 MB and a little more. */
const size: fc.Arbitrary<number> = fc.oneof(
  SHRINK_ACROSS,
  fc.integer({ min: 0, max: 300 }),
  fc.integer({ min: 1_990, max: 2_010 }),
  fc.integer({ min: 4_000, max: 4_200 }),
  fc.integer({ min: 16_300, max: 16_500 }),
  fc.integer({ min: 65_400, max: 65_700 }),
  fc.integer({ min: 65_537, max: 1_048_600 }),
)

/** A long run of one character, as a placeholder (`$[x61*65537]`). */
const bigString = (pct = false): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom('61', '20', '0', 'e9', '1f600', 'd800', '25', '2f', '5c'), size).map(([unit, times]) => repeat(unit, times, pct))

const specialString = fc.constantFrom(
  '',
  ' ',
  '   ',
  '\0',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'toString',
  '../..',
  '%',
  '%%',
  '%zz',
  'pbk_',
  'a'.repeat(201),
)

export const oddString: fc.Arbitrary<string> = fc.oneof(
  SHRINK_ACROSS,
  { weight: 6, arbitrary: fc.string({ unit: oddChar, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: oddChar, maxLength: 260 }) },
  { weight: 2, arbitrary: specialString },
  { weight: 1, arbitrary: bigString() },
)

// ---------------------------------------------------------------------------------------------
// Path parameters and targets

/** Which real values fit a path parameter of a given name. */
const REFS_FOR: Record<string, RefName[]> = {
  eventSlug: ['eventSlug', 'privateEventSlug'],
  slug: ['eventSlug', 'privateEventSlug'],
  setSlug: ['setSlug'],
  setId: ['setId', 'otherSetId'],
  sessionId: ['liveSession', 'activeSession', 'cancelledSession', 'emptySession'],
  photoId: ['photoId'],
  eventId: ['eventId'],
}
const ANY_REF = fc.constantFrom<RefName>(
  'eventSlug',
  'eventId',
  'setSlug',
  'setId',
  'liveSession',
  'photoId',
  'activeSession',
  'boothKey',
  'photoKey',
)

/**
 * What a staff change (its POST, PATCH or DELETE) names instead: only the rows seeded for it
 * (fuzz-service.ts, `seedStaff`), never those the other operations read. A DELETE names the doomed
 * rows, the other changes the scratch ones, so that a deletion does not take away what they change.
 */
const CHANGE_REFS_FOR: Record<string, RefName[]> = {
  eventId: ['scratchEventId'],
  setId: ['scratchSetId'],
  sessionId: ['scratchLiveSession', 'scratchActiveSession'],
  keyId: ['spareKeyId', 'revokedKeyId'],
  messageId: ['failedMessageId', 'pendingMessageId'],
  memberId: ['staffMemberId', 'spareMemberId'],
}
const DELETE_REFS_FOR: Record<string, RefName[]> = {
  eventId: ['doomedEventId'],
  setId: ['doomedSetId'],
  sessionId: ['doomedSession'],
  // The fuzzer's own member: refused (409), a member cannot remove themselves.
  memberId: ['staffMemberId', 'spareMemberId'],
}
const refsOf = (...tables: Record<string, RefName[]>[]) => [...new Set(tables.flatMap((table) => Object.values(table).flat()))]
const ANY_CHANGE_REF = fc.constantFrom(...refsOf(CHANGE_REFS_FOR, DELETE_REFS_FOR))
const ANY_DELETE_REF = fc.constantFrom(...refsOf(DELETE_REFS_FOR))

/** Methods that change rows under /staff (and end a session under /api/auth). */
const STAFF_CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const changesStaff = (operation: Operation) => operation.security === 'staffSession' && STAFF_CHANGES.has(operation.method)
/** The staff's operations and Better Auth's: they read the session cookie, and their changes need a trusted Origin. */
const staffFacing = (operation: Operation | undefined) =>
  operation?.security === 'staffSession' || operation?.template.startsWith('/api/auth/') === true

/** How a garbage segment goes into the path: percent-encoded, as it is, or with only `%`, `/`, `?`, `#` encoded. */
function encodeSegment(value: string, mode: 'pct' | 'raw' | 'light'): string {
  if (mode === 'raw') return value
  // Placeholders stay as they are (a repeat is percent-encoded when resolved).
  return value
    .split(/(\$\[[^\]]*\])/)
    .map((part, index) => {
      if (index % 2 === 1) return part.startsWith('$[x') && mode === 'pct' ? part.replace(/\]$/, '|pct]') : part
      return mode === 'pct' ? percentEncode(part) : part.replace(/[%/?#]/g, (c) => percentEncode(c))
    })
    .join('')
}

/** Mostly percent-encoded; sometimes with only `%`, `/`, `?`, `#` encoded, or as it is. */
const encoding = fc.oneof(
  SHRINK_ACROSS,
  { weight: 6, arbitrary: fc.constant<'pct' | 'raw' | 'light'>('pct') },
  { weight: 3, arbitrary: fc.constant<'pct' | 'raw' | 'light'>('light') },
  { weight: 1, arbitrary: fc.constant<'pct' | 'raw' | 'light'>('raw') },
)

const garbageSegment: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(SHRINK_ACROSS, oddString, bigString()), encoding)
  .map(([value, mode]) => encodeSegment(value, mode))

/** The refs that fit a parameter of the operation, and those it may name in their place. */
function refsFor(operation: Operation, name: string): { own: RefName[]; any: fc.Arbitrary<RefName> } {
  if (!changesStaff(operation)) return { own: REFS_FOR[name] ?? ['setId'], any: ANY_REF }
  if (operation.method === 'DELETE') return { own: DELETE_REFS_FOR[name] ?? ['doomedSetId'], any: ANY_DELETE_REF }
  return { own: CHANGE_REFS_FOR[name] ?? ['scratchSetId'], any: ANY_CHANGE_REF }
}

function paramValue(operation: Operation, name: string): fc.Arbitrary<string> {
  const { own, any } = refsFor(operation, name)
  return fc.oneof(
    SHRINK_ACROSS,
    { weight: 14, arbitrary: fc.constantFrom(...own).map((refName) => ref(refName)) },
    { weight: 1, arbitrary: any.map((refName) => ref(refName)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...own),
          fc.constantFrom('upper', ' ', '%20', 'x', '%00', '%2e', '.', '/', '%2F', '\\', ';x', '%', 'é', '..'),
        )
        .map(([refName, twist]) => (twist === 'upper' ? ref(refName, true) : `${ref(refName)}${twist}`)),
    },
    { weight: 4, arbitrary: garbageSegment },
  )
}

/** Changes to a path that must not change what it means to the server, or that make it mean nothing. */
const pathTwist = fc.oneof(
  SHRINK_ACROSS,
  { weight: 45, arbitrary: fc.constant('none') },
  {
    weight: 15,
    arbitrary: fc.constantFrom(
      'dot',
      'dotdot',
      'pct2e',
      'backslash',
      'double-slash',
      'trailing-slash',
      'upper',
      'encoded-letter',
      'bad-escape',
      'absolute-form',
      'fragment',
      'raw-space',
    ),
  },
)

function twistPath(path: string, twist: string, extra: string): string {
  switch (twist) {
    case 'dot':
      return `/.${path}`
    case 'dotdot':
      return `/${extra || 'x'}/..${path}`
    case 'pct2e':
      return `/%2e${path}`.replace('/%2e/', extra ? '/x/%2e%2E/' : '/%2e/')
    case 'backslash':
      return path.replace(/\//g, (slash, at: number) => (at > 0 && at % 2 === 0 ? '\\' : slash))
    case 'double-slash':
      return path.replace('/', '//')
    case 'trailing-slash':
      return `${path}/`
    case 'upper':
      return path.replace(/^\/[a-z]+/, (head) => head.toUpperCase())
    case 'encoded-letter':
      return path.replace(/^\/([a-z])/, (_, letter: string) => `/%${letter.charCodeAt(0).toString(16)}`)
    case 'bad-escape':
      return `${path}${extra || '%'}`
    case 'absolute-form':
      return `http://${ref('host')}${path}`
    case 'fragment':
      return `${path}#${extra}`
    case 'raw-space':
      return `${path} x`
    default:
      return path
  }
}

const query = fc.oneof(
  SHRINK_ACROSS,
  { weight: 16, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '?',
      '??',
      '?a=1',
      '?a=1&a=2',
      '?%zz=%',
      '?a[b]=1',
      '?__proto__[x]=1',
      '?x=%00',
      '?é=ü',
      `?q=${repeat('61', 9000)}`,
    ),
  },
  { weight: 1, arbitrary: oddString.map((value) => `?q=${encodeSegment(value, 'light')}`) },
)

const badEscape = fc.constantFrom('', '%', '%Z', '%zz', '%E0%A4%A', '%c0%af', '%ed%a0%80', '%ff', '%00', '%2', '%%32%65', '%u002e')

/** Cursors of a session list: a real one, well-formed ones out of range or of no session, base64url of any JSON, garbage. */
const cursor: fc.Arbitrary<string> = fc.oneof(
  SHRINK_ACROSS,
  { weight: 4, arbitrary: fc.constant(ref('sessionsCursor')) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(SHRINK_ACROSS, fc.maxSafeNat(), fc.constantFrom(0, -1, 1.5, 2 ** 53, 1e21, 1e300)),
        fc.oneof(SHRINK_ACROSS, fc.constantFrom('AAAAAAAAAAAAAAAAAAAAAA', 'x', '', 'a'.repeat(65)), oddString),
      )
      .map((key) => Buffer.from(JSON.stringify(key)).toString('base64url')),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')) },
  { weight: 1, arbitrary: oddString },
)

const NUMBER_SPELLINGS = [
  '',
  '0',
  '-1',
  '-0',
  '+5',
  '05',
  ' 5',
  '5 ',
  '1.5',
  '1e1',
  '0x10',
  '101',
  'NaN',
  'Infinity',
  '9007199254740993',
  '1'.repeat(400),
]

/** Values of a declared query parameter: of its kind mostly (a real set, an enum's value, a number in range, a cursor), else odd spellings and garbage. */
function queryValue(name: string, schema: Schema): fc.Arbitrary<string> {
  const resolved = resolveSchema(schema)
  const values = resolved.enum?.map(String)
  let own: fc.Arbitrary<string> = oddString
  let near: fc.Arbitrary<string> = fc.constantFrom('', ' ')
  if (name === 'setId') own = fc.constantFrom(...REFS_FOR.setId!, 'scratchSetId').map((refName) => ref(refName))
  else if (name === 'cursor') own = cursor
  else if (values) {
    own = fc.constantFrom(...values)
    near = fc.constantFrom('', ...values.flatMap((value) => [value.toUpperCase(), ` ${value}`, `${value}x`]))
  } else if (resolved.type === 'integer') {
    own = fc.integer({ min: resolved.minimum ?? -1000, max: resolved.maximum ?? 1000 }).map(String)
    near = fc.constantFrom(...NUMBER_SPELLINGS)
  }
  return fc.oneof(SHRINK_ACROSS, { weight: 14, arbitrary: own }, { weight: 2, arbitrary: near }, { weight: 1, arbitrary: oddString })
}

/** The operation's declared query parameters, each left out, given once or given twice or more. */
function declaredQuery(operation: Operation): fc.Arbitrary<string> {
  const each = operation.queryParams.map(({ name, schema }) => {
    const pair = fc.tuple(queryValue(name, schema), encoding).map(([value, mode]) => `${name}=${encodeSegment(value, mode)}`)
    return fc.oneof(
      SHRINK_ACROSS,
      { weight: 4, arbitrary: fc.constant<string[]>([]) },
      { weight: 6, arbitrary: pair.map((one) => [one]) },
      { weight: 1, arbitrary: fc.array(pair, { minLength: 2, maxLength: 3 }) },
    )
  })
  return fc.tuple(...each).map((pairs) => pairs.flat().join('&'))
}

/** A target for an operation: its template with real or garbage parameters, perhaps twisted, and its query parameters. */
function targetFor(operation: Operation): fc.Arbitrary<string> {
  const params = fc.tuple(...operation.pathParams.map(({ name }) => paramValue(operation, name)))
  return fc.tuple(params, pathTwist, badEscape, declaredQuery(operation), query).map(([values, twist, extra, declared, search]) => {
    let index = 0
    const path = operation.template.replace(/\{\w+\}/g, () => values[index++] ?? '')
    // The garbage query follows the declared one (`?limit=5&q=…`).
    return twistPath(path, twist, extra) + (declared ? `?${declared}${search ? `&${search.slice(1)}` : ''}` : search)
  })
}

// No `staff` and no `sign-out`: an unrouted case may carry the staff cookie and a trusted origin,
// and must become neither a staff change of the rows every operation reads (`DELETE
// /staff/sessions/<live gallery>`) nor the end of the fuzzer's session. Its /staff paths are made
// of unroutedStaffSegment, which holds no refs.
const LITERALS = [
  'gallery',
  'events',
  'sets',
  'sessions',
  'booth',
  'photos',
  'track',
  'contact',
  'openapi.json',
  'api',
  'auth',
  'sign-in',
  'email',
  'zip',
  'download',
  'uploads',
  'complete',
  'cancel',
  'admin',
  '.env',
  'favicon.ico',
  'index.html',
  'get-session',
  'change-password',
  'sign-up',
  'session',
  'members',
  'me',
  'booth-keys',
  'stats',
  'guests.csv',
]
const unroutedSegment = fc.oneof(
  SHRINK_ACROSS,
  { weight: 5, arbitrary: fc.constantFrom(...LITERALS) },
  { weight: 2, arbitrary: ANY_REF.map((refName) => ref(refName)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '.',
      '..',
      '%2e',
      '%2E%2e',
      '.%2e',
      '%2e.',
      '\\..',
      '..\\',
      '%5c',
      '%2f',
      '%',
      '%Z',
      '%E0%A4%A',
      '%c0%ae',
      '%00',
      '~',
      '*',
      ';',
      'a b',
    ),
  },
  { weight: 3, arbitrary: garbageSegment },
)

const unroutedStaffSegment = fc.oneof(
  SHRINK_ACROSS,
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'events',
      'sets',
      'sessions',
      'members',
      'me',
      'booth-keys',
      'messages',
      'stats',
      'guests.csv',
      'revoke',
      'resend',
      'retry',
      'cancel',
      'x',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('.', '..', '%2e', '%2f', '%', '%00', ';') },
  { weight: 1, arbitrary: garbageSegment },
)

/** A path that is not in the document: random segments, dot segments, bad escapes, or no path at all. */
const unroutedTarget: fc.Arbitrary<string> = fc.oneof(
  SHRINK_ACROSS,
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.array(unroutedSegment, { minLength: 0, maxLength: 6 }), query)
      .map(([segments, search]) => `/${segments.join('/')}${search}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      'example.com:443',
      `${ref('host')}`,
      `http://${ref('host')}/track`,
      'http://[::1]/x',
      '//evil.example/x',
      '/\\evil.example',
      'x',
      '',
      '/%',
      '/%ZZ',
      '/..',
      '/../../etc/passwd',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('/photos/', '/photos/sessions/', '/gallery/', '/booth/', '/api/auth/sign-in/', '/api/auth/'),
        fc.array(unroutedSegment, { maxLength: 4 }),
      )
      .map(([prefix, segments]) => prefix + segments.join('/')),
  },
  { weight: 1, arbitrary: fc.array(unroutedStaffSegment, { maxLength: 4 }).map((segments) => `/staff/${segments.join('/')}`) },
  // The guest's pages: real sessions and events, and anything else under their path.
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom(...REFS_FOR.sessionId!.map((name) => `/g/${ref(name)}`), ...REFS_FOR.slug!.map((name) => `/g/events/${ref(name)}`)),
      fc.array(unroutedSegment, { maxLength: 3 }).map((segments) => `/g/${segments.join('/')}`),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          ref('photoKey'),
          ref('uploadKey'),
          `sessions/${ref('liveSession')}/x.jpg`,
          `sessions/${ref('activeSession')}/${ref('photoId')}.jpg`,
          'sessions/../../x.jpg',
        ),
        fc.boolean(),
      )
      .map(([key, signed]) => `/photos/${key}${signed ? `?${ref('uploadQuery')}` : ''}`),
  },
)

// ---------------------------------------------------------------------------------------------
// Methods and headers

const oddMethod = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'SEARCH',
  'QUERY',
  'PURGE',
  'M-SEARCH',
  'BREW',
  'FOO',
  'get',
  'Post',
  'G ET',
  'GET\t',
  '',
  'P\u00d6ST',
)

/**
 * The operation's own method mostly. A staff operation is never switched to another change: its
 * refs fit its own (a read names the rows every operation reads, which `DELETE /staff/sessions/<live
 * gallery>` would delete; a PATCH names scratch rows, which a DELETE would take from the others).
 */
function methodFor(operation: Operation): fc.Arbitrary<string> {
  return fc.oneof(
    SHRINK_ACROSS,
    { weight: 20, arbitrary: fc.constant(operation.method) },
    { weight: operation.method === 'GET' ? 3 : 0, arbitrary: fc.constant('HEAD') },
    { weight: 2, arbitrary: operation.security === 'staffSession' ? oddMethod.filter((method) => !STAFF_CHANGES.has(method)) : oddMethod },
  )
}

const WRONG_TYPES = [
  'application/json',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json;charset=latin1',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/problem+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  'text/html',
  'application/xml',
  'application/octet-stream',
  'image/jpeg',
  '*/*',
  '',
  ';',
  'application/json; charset="utf-8"; x=y',
  'application/json, text/plain',
]

/** The operation's own media type mostly; none, a wrong one or garbage otherwise. */
function contentType(own: string[]): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    SHRINK_ACROSS,
    { weight: own.length > 0 ? 20 : 0, arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.constant(undefined) },
    { weight: own.length > 0 ? 2 : 8, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom(...WRONG_TYPES) },
    { weight: 1, arbitrary: oddString },
  )
}

const authorization = fc.oneof(
  SHRINK_ACROSS,
  { weight: 20, arbitrary: fc.constant(`Bearer ${ref('boothKey')}`) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      `Bearer ${ref('revokedBoothKey')}`,
      `bearer ${ref('boothKey')}`,
      `BEARER ${ref('boothKey')}`,
      `Bearer ${ref('boothKey')} x`,
      `Bearer  ${ref('boothKey')}`,
      `Bearer ${ref('boothKey')}=`,
      `Basic ${ref('boothKey')}`,
      'Bearer',
      'Bearer ',
      '',
      'Bearer pbk_',
      'Bearer pbk_aaaaaaaaaaaa_',
      `Bearer pbk_${'a'.repeat(12)}_${'b'.repeat(43)}`,
      `Bearer ${repeat('61', 70_000)}`,
    ),
  },
  { weight: 1, arbitrary: oddString.map((value) => `Bearer ${value}`) },
  { weight: 1, arbitrary: oddString },
)

/** Values of the client-IP header: IPs of every form, lists, zones, garbage. */
const clientIp = fc.oneof(
  SHRINK_ACROSS,
  { weight: 4, arbitrary: fc.ipV4() },
  { weight: 3, arbitrary: fc.ipV6() },
  { weight: 1, arbitrary: fc.ipV4Extended() },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'unknown',
      'localhost',
      '127.0.0.1',
      ' 127.0.0.1 ',
      '1.2.3.4, 5.6.7.8',
      '1.2.3.4,1.2.3.4',
      '::1',
      '::',
      '::ffff:1.2.3.4',
      'fe80::1%eth0',
      '[::1]',
      '[::1]:80',
      '1.2.3.4:80',
      '01.02.03.04',
      '1.2.3.256',
      '999.999.999.999',
      '2001:db8::1/64',
      '0x7f.1',
      '1e3',
      '-1',
      'null',
      '1.2.3.4\0',
      'ffff::ffff::ffff',
    ),
  },
  { weight: 1, arbitrary: oddString },
)

const HEADER_NAMES = [
  'X-Forwarded-For',
  'X-Real-IP',
  'Forwarded',
  'True-Client-IP',
  'X-Client-IP',
  'Accept',
  'Accept-Encoding',
  'Accept-Language',
  'Content-Encoding',
  'Origin',
  'Referer',
  'User-Agent',
  'Cookie',
  'Range',
  'If-None-Match',
  'If-Modified-Since',
  'X-HTTP-Method-Override',
  'Upgrade',
  'Expect',
  'Connection',
  'Transfer-Encoding',
  'TE',
  'Trailer',
  'Via',
  'Max-Forwards',
  'Content-MD5',
  'X-Request-Id',
]

const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(
  SHRINK_ACROSS,
  {
    weight: 6,
    arbitrary: fc.tuple(
      fc.constantFrom(...HEADER_NAMES),
      fc.oneof(
        SHRINK_ACROSS,
        oddString,
        fc.constantFrom(
          '100-continue',
          'close',
          'keep-alive',
          'upgrade',
          'websocket',
          'h2c',
          'gzip',
          'br',
          'chunked',
          'identity',
          'gzip, chunked',
          'bytes=0-0',
          'bytes=5-1',
          '*',
          'for=1.2.3.4;proto=https',
        ),
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(' X-Lead', 'X Space', 'X-Trail ', '', ':', 'X-Ü', 'X\u0000', 'X-A\r\nX-B'), fc.constant('1')),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constant('X-Fold'), fc.constantFrom('a\r\n b', 'a\r\n\tb', 'a\rb', 'a\nb', 'a\0b')) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constant('X-Big'), fc.constantFrom(repeat('61', 8_000), repeat('61', 17_000), repeat('61', 70_000))),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('X-Bytes', CLIENT_IP_HEADER, 'Content-Type'),
      fc.constantFrom(bytes('ff fe'), bytes('c0 af'), bytes('ed a0 80'), bytes('80'), bytes('00'), bytes('7f')),
    ),
  },
)

/** A staff session cookie: the real one mostly; among others, doubled, tampered, unsigned, renamed, empty or garbage otherwise. */
function sessionCookie(cookie: 'staffCookie' | 'spareCookie', token: 'staffToken' | 'spareToken'): fc.Arbitrary<string> {
  const real = ref(cookie)
  return fc.oneof(
    SHRINK_ACROSS,
    { weight: 20, arbitrary: fc.constant(real) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        `theme=dark; ${real}`,
        `${real}; ${real}`,
        `${real};`,
        `photobooth.session_token=x; ${real}`,
        `${real}; photobooth.session_token=x`,
      ),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `${real}x`,
        ref(cookie, true),
        `photobooth.session_token=${ref(token)}`,
        `photobooth.session_token=${ref(token)}.`,
        `__Secure-${real}`,
        `better-auth.session_token=${ref(token)}`,
        'photobooth.session_token=',
        'photobooth.session_token',
      ),
    },
    { weight: 1, arbitrary: oddString.map((value) => `photobooth.session_token=${value}`) },
  )
}

/** The owner's session mostly; a manager's or a staff member's sometimes, which meet the routes' role checks. */
const staffCookie = fc.oneof(
  SHRINK_ACROSS,
  { weight: 8, arbitrary: sessionCookie('staffCookie', 'staffToken') },
  { weight: 1, arbitrary: fc.constant(ref('managerCookie')) },
  { weight: 1, arbitrary: fc.constant(ref('staffRoleCookie')) },
)

/** Origin and Referer: the service's own origin mostly; none, another, a lookalike, `null`, or a Referer in its place otherwise. */
const origins: fc.Arbitrary<[string, string][]> = fc.oneof(
  SHRINK_ACROSS,
  { weight: 20, arbitrary: fc.constant<[string, string][]>([['Origin', ref('origin')]]) },
  { weight: 2, arbitrary: fc.constant<[string, string][]>([]) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<[string, string][]>(
      [['Origin', 'http://evil.example']],
      [['Origin', 'null']],
      // The address the fuzzer talks to is not the service's public origin.
      [['Origin', `http://${ref('host')}`]],
      [['Origin', ref('origin', true)]],
      [['Origin', `${ref('origin')}/`]],
      [['Origin', `${ref('origin')}.evil.example`]],
      [
        ['Origin', ref('origin')],
        ['Origin', 'http://evil.example'],
      ],
      [['Referer', `${ref('origin')}/staff/events`]],
      [['Referer', 'http://evil.example/staff']],
      [['Referer', 'not a url']],
      [
        ['Origin', 'null'],
        ['Referer', `${ref('origin')}/`],
      ],
      [
        ['Origin', 'http://evil.example'],
        ['Referer', `${ref('origin')}/`],
      ],
    ),
  },
  { weight: 1, arbitrary: oddString.map((value): [string, string][] => [['Origin', value]]) },
)

type Credentials = { authorization?: string; cookie?: string; twilioSignature?: string }

/** `X-Twilio-Signature`'s value that runner.ts replaces with the signature of the request as sent. */
export const TWILIO_SIGNED = '(signed by the fuzzer)'

/** Mostly absent; present one time in 13 (`weight` in 12 + `weight`). */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, weight = 1) =>
  fc.oneof(SHRINK_ACROSS, { weight: 12, arbitrary: fc.constant(undefined) }, { weight, arbitrary })

/**
 * The credentials an operation gets: a booth key mostly for the booth's; the staff session mostly
 * for the staff's and Better Auth's, sometimes none or a booth key instead; either rarely elsewhere.
 * A sign-out gets the spare member's session: ending the fuzzer's own would leave every later staff
 * request at 401. Nothing else does: with it, `DELETE /staff/members/<the fuzzer's member>` would
 * succeed (a member only cannot remove themselves).
 */
function credentialsFor(operation: Operation | undefined): fc.Arbitrary<Credentials> {
  if (operation?.id === 'POST /webhooks/postmark') {
    return fc.record({
      authorization: fc.oneof(
        SHRINK_ACROSS,
        { weight: 10, arbitrary: fc.constant(basic(POSTMARK_WEBHOOK)) },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            undefined,
            basic({ ...POSTMARK_WEBHOOK, password: 'wrong' }),
            basic({ ...POSTMARK_WEBHOOK, password: POSTMARK_WEBHOOK.password.toUpperCase() }),
            `basic ${Buffer.from(`${POSTMARK_WEBHOOK.user}:${POSTMARK_WEBHOOK.password}`).toString('base64')}`,
            'Basic',
            'Basic !!!!',
            `Basic ${'A'.repeat(10_000)}`,
          ),
        },
        { weight: 1, arbitrary: authorization },
      ),
    })
  }
  if (operation?.template.startsWith('/webhooks/twilio/')) {
    // Signed over the request as sent (runner.ts), mostly; otherwise missing, garbage, or another's.
    return fc.record({
      twilioSignature: fc.oneof(
        SHRINK_ACROSS,
        { weight: 10, arbitrary: fc.constant(TWILIO_SIGNED) },
        { weight: 3, arbitrary: fc.constantFrom(undefined, '', 'bm90IGEgc2lnbmF0dXJl', '0'.repeat(28), `${'a'.repeat(27)}=`) },
        { weight: 1, arbitrary: oddString },
      ),
    })
  }
  if (operation?.security === 'boothKey') {
    return fc.record({
      authorization: fc.oneof(SHRINK_ACROSS, { weight: 10, arbitrary: authorization }, { weight: 1, arbitrary: fc.constant(undefined) }),
      cookie: rarely(staffCookie),
    })
  }
  if (staffFacing(operation)) {
    const cookie = operation?.id === 'POST /api/auth/sign-out' ? sessionCookie('spareCookie', 'spareToken') : staffCookie
    return fc.oneof(
      SHRINK_ACROSS,
      { weight: 20, arbitrary: fc.record({ cookie }) },
      { weight: 1, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.record({ authorization }) },
      { weight: 1, arbitrary: fc.record({ cookie, authorization }) },
    )
  }
  return fc.record({ authorization: rarely(authorization), cookie: rarely(staffCookie) })
}

function headersFor(operation: Operation | undefined): fc.Arbitrary<[string, string][]> {
  return fc
    .record({
      host: fc.oneof(
        SHRINK_ACROSS,
        { weight: 20, arbitrary: fc.constant<string | undefined>(ref('host')) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            undefined,
            '',
            'evil.example',
            `${ref('host')}, evil.example`,
            'a b',
            'ü.example',
            `${ref('host')}:99999`,
          ),
        },
      ),
      contentType: contentType(operation?.bodyTypes ?? []),
      credentials: credentialsFor(operation),
      origin: staffFacing(operation) ? origins : rarely(origins),
      clientIp: rarely(clientIp, 6),
      duplicateClientIp: rarely(clientIp),
      extra: fc.oneof(
        SHRINK_ACROSS,
        { weight: 5, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 3 }) },
      ),
    })
    .map(({ host, contentType: type, credentials, origin, clientIp: ip, duplicateClientIp, extra }) => {
      const headers: [string, string][] = []
      if (host !== undefined) headers.push(['Host', host])
      if (type !== undefined) headers.push(['Content-Type', type])
      if (credentials.authorization !== undefined) headers.push(['Authorization', credentials.authorization])
      if (credentials.cookie !== undefined) headers.push(['Cookie', credentials.cookie])
      if (credentials.twilioSignature !== undefined) headers.push(['X-Twilio-Signature', credentials.twilioSignature])
      headers.push(...(origin ?? []))
      if (ip !== undefined) headers.push([CLIENT_IP_HEADER, ip])
      if (duplicateClientIp !== undefined) headers.push([CLIENT_IP_HEADER, duplicateClientIp])
      headers.push(...extra)
      return headers
    })
}

// ---------------------------------------------------------------------------------------------
// Bodies

/** Realistic values by property name, so that bodies also pass validation and reach the domain. */
const HINTS: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.oneof(
    SHRINK_ACROSS,
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'Ada Lovelace',
        'Grace',
        'Zoë O’Brien',
        '  Ada   King  Lovelace ',
        'Jean-Luc',
        '李小龍',
        'A',
        'x'.repeat(100),
      ),
    },
    { weight: 2, arbitrary: oddString },
  ),
  email: fc.oneof(
    SHRINK_ACROSS,
    // Plain ones too: most of fc.emailAddress()'s are valid by RFC 5322 and refused by zod's pattern.
    { weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9]{1,12}(?:[.+-][a-z0-9]{1,8})?@example\.(?:org|com)$/) },
    { weight: 3, arbitrary: fc.emailAddress() },
    // A staff member's: a sign-in that passes (with the password), an invitation that is refused (409).
    { weight: 3, arbitrary: fc.constant(ref('staffEmail')) },
    { weight: 1, arbitrary: fc.constantFrom(ref('staffEmail', true), ` ${ref('staffEmail')}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'ADA@EXAMPLE.ORG',
        'ada@example.org',
        'not-an-email',
        'a@b',
        '"a b"@example.org',
        'ü@例え.jp',
        `${'a'.repeat(250)}@b.c`,
      ),
    },
    { weight: 2, arbitrary: oddString },
  ),
  // Sign-ins and invitations. Never `currentPassword`: a change of the fuzzer's password with
  // `revokeOtherSessions` would end its session.
  password: fc.oneof(
    SHRINK_ACROSS,
    { weight: 5, arbitrary: fc.constant(ref('staffPassword')) },
    { weight: 3, arbitrary: fc.string({ minLength: 12, maxLength: 40 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'a'.repeat(11),
        'a'.repeat(128),
        'a'.repeat(129),
        `${ref('staffPassword')} `,
        ref('staffPassword', true),
        ref('staffToken'),
      ),
    },
    { weight: 2, arbitrary: oddString },
  ),
  // A taken one answers 409: the first event's, the private one's, and the seeded sets' (`set-1`, `set-2` in every event).
  slug: fc.oneof(
    SHRINK_ACROSS,
    { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9]{1,12}(?:-[a-z0-9]{1,12}){0,3}$/) },
    { weight: 2, arbitrary: fc.constantFrom(ref('eventSlug'), ref('privateEventSlug'), 'set-1', 'set-2') },
    { weight: 1, arbitrary: fc.constantFrom('A', 'a--b', '-a', 'a-', 'a_b', 'é', ' a', 'a'.repeat(100), 'a'.repeat(101)) },
    { weight: 1, arbitrary: oddString },
  ),
  phone: fc.oneof(
    SHRINK_ACROSS,
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '(415) 555-2671',
        '+1 415 555 2671',
        '+44 20 7946 0958',
        '4155552671',
        '+14155552671',
        '555',
        '',
        ' ',
        '+',
        '+0',
        'call me',
        '٤١٥٥٥٥٢٦٧١',
        '415-555-2671 ext. 9',
        '+999 999 999 999 999',
        '1'.repeat(40),
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('0', '1', '4', '5', '+', ' ', '-', '(', ')', 'x', '.'), maxLength: 45 }) },
    { weight: 2, arbitrary: oddString },
  ),
  sessionId: fc.oneof(
    SHRINK_ACROSS,
    fc.constantFrom(ref('liveSession'), ref('activeSession'), ref('cancelledSession'), ref('emptySession')),
    oddString,
  ),
  eventId: fc.oneof(SHRINK_ACROSS, fc.constantFrom(ref('eventId'), ref('setId')), oddString),
  count: fc.oneof(SHRINK_ACROSS, fc.integer({ min: 1, max: 60 }), fc.integer({ min: -2, max: 200 })),
  // A real moment mostly (2020 to 2035); else the edges of a date: years 9999 and 10000, JavaScript's last millisecond and the next.
  startAt: fc.oneof(
    SHRINK_ACROSS,
    { weight: 6, arbitrary: fc.integer({ min: Date.UTC(2020, 0), max: Date.UTC(2035, 0) }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        0,
        Date.UTC(9999, 11, 31, 23, 59, 59, 999),
        Date.UTC(10_000, 0),
        8.64e15,
        8.64e15 + 1,
        Number.MAX_SAFE_INTEGER,
      ),
    },
    { weight: 1, arbitrary: fc.maxSafeNat() },
  ),
}

const photoKey = fc.oneof(
  SHRINK_ACROSS,
  fc.constantFrom(
    ref('uploadKey'),
    ref('photoKey'),
    `sessions/${ref('activeSession')}/${ref('photoId')}.jpg`,
    `sessions/${ref('activeSession')}/x.jpg`,
    'sessions/../x.jpg',
    `sessions/${ref('activeSession')}/`,
    '',
  ),
  oddString,
)

const CONTACT_LABELS = ['Name', 'Email', 'Phone', 'Event date', 'Message']
const contactFields = fc.dictionary(
  fc.oneof(
    SHRINK_ACROSS,
    { weight: 6, arbitrary: fc.constantFrom(...CONTACT_LABELS) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'name', 'EMAIL', 'Email ', '') },
    { weight: 1, arbitrary: oddString },
  ),
  fc.oneof(
    SHRINK_ACROSS,
    { weight: 4, arbitrary: fc.constantFrom('Ada', 'ada@example.org', '2026-06-01', 'Hello\nthere', '') },
    { weight: 2, arbitrary: oddString },
    { weight: 1, arbitrary: fc.integer({ min: 1_990, max: 2_010 }).map((n) => repeat('61', n)) },
  ),
  { maxKeys: 8 },
)

/** An arbitrary of values valid (mostly) for a JSON Schema of the document. */
export function fromSchema(schema: Schema, name?: string): fc.Arbitrary<unknown> {
  const resolved = resolveSchema(schema)
  if (name === 'fields') return contactFields
  if (name === 'photos') return fc.array(photoKey, { maxLength: 4 })
  if (name && HINTS[name] && resolved.const === undefined && resolved.enum === undefined) return HINTS[name]
  if (resolved.const !== undefined) return fc.constant(resolved.const)
  if (resolved.enum) return fc.constantFrom(...resolved.enum)
  if (resolved.anyOf) return fc.oneof(SHRINK_ACROSS, ...resolved.anyOf.map((option) => fromSchema(option, name)))
  switch (resolved.type) {
    case 'object': {
      const properties = resolved.properties ?? {}
      const required = resolved.required ?? []
      return fc.record(Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fromSchema(value, key)])), {
        requiredKeys: required,
      })
    }
    case 'array':
      return fc.array(fromSchema(resolved.items ?? {}), {
        minLength: resolved.minItems ?? 0,
        maxLength: Math.min(resolved.maxItems ?? 4, 4),
      })
    case 'string':
      return resolved.pattern
        ? fc.stringMatching(new RegExp(resolved.pattern))
        : fc.string({ minLength: resolved.minLength ?? 0, maxLength: Math.min(resolved.maxLength ?? 20, 20) })
    case 'integer':
      return fc.integer({ min: resolved.minimum ?? -1000, max: resolved.maximum ?? 1000 })
    case 'number':
      return fc.double()
    case 'boolean':
      return fc.boolean()
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** A change to a JSON value, applied at the `at`-th node (modulo the node count). */
type Mutation =
  | { op: 'retype'; at: number; value: unknown }
  | { op: 'drop'; at: number }
  | { op: 'add'; at: number; key: string; value: unknown }
  | { op: 'grow'; at: number; times: number }

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  SHRINK_ACROSS,
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, -0, 1e308, 2 ** 53 + 1, true, false, null, [], {}, [null], { '': null }, '1', 'true'),
  oddString,
  fc.jsonValue({ maxDepth: 3 }),
)

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  SHRINK_ACROSS,
  fc.record({ op: fc.constant('retype' as const), at: fc.nat(), value: wrongValue }),
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('add' as const),
    at: fc.nat(),
    key: fc.oneof(SHRINK_ACROSS, fc.constantFrom('__proto__', 'constructor', 'extra', 'guests', 'kind', 'id', ''), oddString),
    value: wrongValue,
  }),
  fc.record({ op: fc.constant('grow' as const), at: fc.nat(), times: fc.integer({ min: 2, max: 80 }) }),
)

type Slot = { parent: Record<string, unknown> | unknown[]; key: string | number }

function slotsOf(value: unknown, slots: Slot[] = []): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      slots.push({ parent: value, key: index })
      slotsOf(item, slots)
    })
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      slots.push({ parent: value as Record<string, unknown>, key })
      slotsOf(item, slots)
    }
  }
  return slots
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function mutate(base: unknown, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(base)
  for (const generated of mutations) {
    // A copy: a generated value is shared (constantFrom's `[]` is one array for every case, and
    // shrinking replays values), and a later change would grow it, even into itself.
    const change = 'value' in generated ? { ...generated, value: structuredClone(generated.value) } : generated
    const slots = slotsOf(root)
    const containers = [root, ...slots.map((slot) => (slot.parent as Record<string | number, unknown>)[slot.key])].filter(
      (item) => item !== null && typeof item === 'object',
    )
    if (change.op === 'add') {
      const target = containers[change.at % Math.max(containers.length, 1)]
      if (Array.isArray(target)) target.push(change.value)
      else if (target && typeof target === 'object') setOwn(target as Record<string, unknown>, change.key, change.value)
      continue
    }
    if (change.op === 'grow') {
      const arrays = containers.filter(Array.isArray)
      const target = arrays[change.at % Math.max(arrays.length, 1)]
      if (target && target.length > 0) target.push(...Array.from({ length: change.times }, () => structuredClone(target[0])))
      continue
    }
    if (slots.length === 0) {
      if (change.op === 'retype') root = change.value
      continue
    }
    const slot = slots[change.at % slots.length]!
    if (change.op === 'drop') {
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1)
      else delete slot.parent[slot.key as string]
    } else if (Array.isArray(slot.parent)) {
      slot.parent[slot.key as number] = change.value
    } else {
      setOwn(slot.parent, slot.key as string, change.value)
    }
  }
  return root
}

/** Bodies that are not the operation's JSON at all. */
const otherBody: fc.Arbitrary<Body> = fc.oneof(
  SHRINK_ACROSS,
  { weight: 3, arbitrary: oddString.map((text) => ({ text })) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        'null',
        'true',
        '0',
        '"x"',
        '[]',
        '[{}]',
        '{}',
        '{',
        '}',
        '{"a":',
        '{"guests":[{"name":"Ada","email":"a@b.c"}]',
        '\ufeff{}',
        '{"__proto__":{"x":1}}',
        '{"a":1,"a":2}',
        '{"a":1e999}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        "{'a':1}",
        'a=1&b=2',
        '<?xml version="1.0"?><a/>',
        '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
      )
      .map((text) => ({ text })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        bytes('ff fe 7b 00 7d 00'),
        bytes('ed a0 80'),
        `{"name":"${bytes('c0 af')}"}`,
        `{"name":"a${bytes('ed a0 80')}"}`,
        bytes('00 00 00'),
      )
      .map((text) => ({ text })),
  },
  { weight: 2, arbitrary: size.map((n) => ({ text: `${repeat('5b', n)}${repeat('5d', n)}` })) },
  { weight: 1, arbitrary: size.map((n) => ({ text: repeat('5b', n) })) },
  { weight: 2, arbitrary: bigString().map((text) => ({ text })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((json) => ({ json, cut: 0 })) },
)

function bodyFor(operation: Operation): fc.Arbitrary<Body | null> {
  if (!operation.bodySchema) {
    return fc.oneof(SHRINK_ACROSS, { weight: 8, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: otherBody })
  }
  if (operation.bodyTypes[0] === 'application/x-www-form-urlencoded') {
    // A form of the schema's fields (a Twilio callback), each value as text; sometimes not a form at all.
    const form = fromSchema(operation.bodySchema).map((value): Body => {
      const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [['value', value]]
      const text = (field: unknown) => (typeof field === 'string' ? field : (JSON.stringify(field) ?? ''))
      return { text: new URLSearchParams(fields.map(([name, field]): [string, string] => [String(name), text(field)])).toString() }
    })
    return fc.oneof(
      SHRINK_ACROSS,
      { weight: 12, arbitrary: form },
      { weight: 3, arbitrary: otherBody },
      { weight: 1, arbitrary: fc.constant(null) },
    )
  }
  const json = fc
    .tuple(
      fromSchema(operation.bodySchema),
      fc.oneof(
        SHRINK_ACROSS,
        { weight: 3, arbitrary: fc.constant<Mutation[]>([]) },
        { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
      ),
      // Broken JSON: the last characters cut, one in ten.
      fc.oneof(SHRINK_ACROSS, { weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }),
      // A JSON array of the body, one in ten.
      fc.oneof(SHRINK_ACROSS, { weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    )
    .map(([base, mutations, cut, wrap]): Body => {
      const value = mutate(base, mutations)
      return { json: wrap ? [value] : value, cut }
    })
  // A valid body with one string of it swapped for a long one (a 1 MB name, a 20,000-character phone).
  const oversized = fc.tuple(fromSchema(operation.bodySchema), fc.nat(), bigString()).map(([base, at, text]): Body => {
    const strings = slotsOf(base).filter((slot) => typeof (slot.parent as Record<string | number, unknown>)[slot.key] === 'string')
    const slot = strings[at % Math.max(strings.length, 1)]
    if (slot) (slot.parent as Record<string | number, unknown>)[slot.key] = text
    return { json: slot ? base : text, cut: 0 }
  })
  return fc.oneof(
    SHRINK_ACROSS,
    { weight: 12, arbitrary: json },
    { weight: 2, arbitrary: oversized },
    { weight: 3, arbitrary: otherBody },
    { weight: 1, arbitrary: fc.constant(null) },
  )
}

// ---------------------------------------------------------------------------------------------
// Whole requests

const framing: fc.Arbitrary<Framing> = fc.oneof(
  SHRINK_ACROSS,
  { weight: 30, arbitrary: fc.constant<Framing>('length') },
  { weight: 5, arbitrary: fc.constant<Framing>('chunked') },
  { weight: 2, arbitrary: fc.constantFrom(...FRAMINGS) },
)
const version = fc.oneof(
  SHRINK_ACROSS,
  { weight: 30, arbitrary: fc.constant('HTTP/1.1') },
  { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.2', 'http/1.1', 'HTTP/1.1 x', 'HTTP/1', '') },
)
const wireShape = fc.record({
  via: fc.constantFrom<'http' | 'raw'>('http', 'raw'),
  framing,
  version,
  headEncoding: fc.oneof(
    SHRINK_ACROSS,
    { weight: 8, arbitrary: fc.constant<'utf8' | 'latin1'>('utf8') },
    { weight: 1, arbitrary: fc.constant<'utf8' | 'latin1'>('latin1') },
  ),
  probe: fc.boolean(),
})

function caseFor(operation: Operation): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(methodFor(operation), targetFor(operation), headersFor(operation), bodyFor(operation), wireShape)
    .map(([method, target, headers, body, wire]): FuzzCase => ({
      from: operation.id,
      via: wire.via,
      method,
      target,
      version: wire.version,
      headers,
      body,
      framing: wire.framing,
      headEncoding: wire.headEncoding,
      probe: wire.probe,
    }))
}

const unroutedMethod = fc.oneof(
  SHRINK_ACROSS,
  { weight: 4, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
  { weight: 1, arbitrary: oddMethod },
)

const unroutedCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    unroutedMethod,
    unroutedTarget,
    headersFor(undefined),
    fc.oneof(SHRINK_ACROSS, { weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: otherBody }),
    wireShape,
  )
  .map(([method, target, headers, body, wire]): FuzzCase => ({
    from: 'unrouted',
    via: wire.via,
    method,
    target,
    version: wire.version,
    headers,
    body,
    framing: wire.framing,
    headEncoding: wire.headEncoding,
    probe: wire.probe,
  }))

/** Every request the fuzzer sends: nine in ten from an operation of the document, one in ten unrouted. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  SHRINK_ACROSS,
  { weight: 9, arbitrary: fc.oneof(SHRINK_ACROSS, ...operations.map(caseFor)) },
  { weight: 2, arbitrary: unroutedCase },
)
