/**
 * The requests the fuzzer sends: derived from the operations of openapi/openapi.json (method, path
 * template, path parameters, body schema) and mutated: wrong types, missing and extra fields,
 * strings up to 1 MB, NUL, lone surrogates, odd unicode, wrong or missing content types, broken
 * JSON, JSON arrays, bodies over the limits with and without a Content-Length, unrouted paths and
 * methods, dot segments and bad %-escapes, odd and invalid client-IP headers, and requests no
 * client sends (raw spaces, bad header bytes, CONNECT, odd versions and framings).
 */
import fc from 'fast-check'

import { operations, resolveSchema, type Operation, type Schema } from './openapi.js'
import type { RefName } from './protocol.js'
import { CLIENT_IP_HEADER } from './service.js'
import { bytes, percentEncode, ref, repeat } from './text.js'
import { FRAMINGS, type Framing } from './wire.js'

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
const oddChar: fc.Arbitrary<string> = fc.oneof(SHRINK_ACROSS,
  { weight: 3, arbitrary: fc.constantFrom('\0', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f', '\u00a0', '\u00ad') },
  { weight: 3, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ufffe', '\uffff', '\ufeff', '\ufffd', '\u200b', '\u200d', '\u202e', '\u2028', '\u2029', '\u{10ffff}', '\u{e0041}') },
  { weight: 2, arbitrary: fc.constantFrom('é', 'e\u0301', 'ß', 'İ', 'ﬃ', 'Ω', '한', '中', '😀', '👩‍👩‍👧', '🏳️‍🌈', 'ẞ', 'ǅ', 'Ⅻ', '١', '\u0661') },
  { weight: 3, arbitrary: fc.constantFrom('%', '%00', '%2e', '%2f', '%5c', '%zz', '%E0%A4%A', '/', '\\', '.', '..', '?', '#', '&', '=', '+', ' ', '"', "'", '<', '>', '{', '}', '$', '`', ';', ',', '*', ':', '@') },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
)

/** Sizes near the limits: 200 (path segments), 4 KB (beacons), 16 KB (contact), 64 KB (bodies), up to 1 MB and a little more. */
const size: fc.Arbitrary<number> = fc.oneof(SHRINK_ACROSS,
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

const specialString = fc.constantFrom('', ' ', '   ', '\0', 'null', 'undefined', 'NaN', '0', '-1', 'true', '[]', '{}', '__proto__', 'constructor', 'toString', '../..', '%', '%%', '%zz', 'pbk_', 'a'.repeat(201))

export const oddString: fc.Arbitrary<string> = fc.oneof(SHRINK_ACROSS,
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
}
const ANY_REF = fc.constantFrom<RefName>('eventSlug', 'eventId', 'setSlug', 'setId', 'liveSession', 'photoId', 'activeSession', 'boothKey', 'photoKey')

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

const garbageSegment: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(SHRINK_ACROSS, oddString, bigString()), fc.oneof(SHRINK_ACROSS, { weight: 6, arbitrary: fc.constant<'pct' | 'raw' | 'light'>('pct') }, { weight: 3, arbitrary: fc.constant<'pct' | 'raw' | 'light'>('light') }, { weight: 1, arbitrary: fc.constant<'pct' | 'raw' | 'light'>('raw') }))
  .map(([value, mode]) => encodeSegment(value, mode))

function paramValue(name: string): fc.Arbitrary<string> {
  const own = REFS_FOR[name] ?? ['setId']
  return fc.oneof(SHRINK_ACROSS,
    { weight: 14, arbitrary: fc.constantFrom(...own).map((refName) => ref(refName)) },
    { weight: 1, arbitrary: ANY_REF.map((refName) => ref(refName)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...own), fc.constantFrom('upper', ' ', '%20', 'x', '%00', '%2e', '.', '/', '%2F', '\\', ';x', '%', 'é', '..'))
        .map(([refName, twist]) => (twist === 'upper' ? ref(refName, true) : `${ref(refName)}${twist}`)),
    },
    { weight: 4, arbitrary: garbageSegment },
  )
}

/** Changes to a path that must not change what it means to the server, or that make it mean nothing. */
const pathTwist = fc.oneof(SHRINK_ACROSS,
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

const query = fc.oneof(SHRINK_ACROSS,
  { weight: 16, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('?', '??', '?a=1', '?a=1&a=2', '?%zz=%', '?a[b]=1', '?__proto__[x]=1', '?x=%00', '?é=ü', `?q=${repeat('61', 9000)}`) },
  { weight: 1, arbitrary: oddString.map((value) => `?q=${encodeSegment(value, 'light')}`) },
)

const badEscape = fc.constantFrom('', '%', '%Z', '%zz', '%E0%A4%A', '%c0%af', '%ed%a0%80', '%ff', '%00', '%2', '%%32%65', '%u002e')

/** A target for an operation: its template with real or garbage parameters, perhaps twisted. */
function targetFor(operation: Operation): fc.Arbitrary<string> {
  const params = fc.tuple(...operation.pathParams.map(({ name }) => paramValue(name)))
  return fc.tuple(params, pathTwist, badEscape, query).map(([values, twist, extra, search]) => {
    let index = 0
    const path = operation.template.replace(/\{\w+\}/g, () => values[index++] ?? '')
    return twistPath(path, twist, extra) + search
  })
}

const LITERALS = ['gallery', 'events', 'sets', 'sessions', 'booth', 'photos', 'track', 'contact', 'openapi.json', 'api', 'auth', 'sign-in', 'email', 'zip', 'download', 'uploads', 'complete', 'cancel', 'admin', '.env', 'favicon.ico', 'index.html']
const unroutedSegment = fc.oneof(SHRINK_ACROSS,
  { weight: 5, arbitrary: fc.constantFrom(...LITERALS) },
  { weight: 2, arbitrary: ANY_REF.map((refName) => ref(refName)) },
  { weight: 2, arbitrary: fc.constantFrom('', '.', '..', '%2e', '%2E%2e', '.%2e', '%2e.', '\\..', '..\\', '%5c', '%2f', '%', '%Z', '%E0%A4%A', '%c0%ae', '%00', '~', '*', ';', 'a b') },
  { weight: 3, arbitrary: garbageSegment },
)

/** A path that is not in the document: random segments, dot segments, bad escapes, or no path at all. */
const unroutedTarget: fc.Arbitrary<string> = fc.oneof(SHRINK_ACROSS,
  { weight: 8, arbitrary: fc.tuple(fc.array(unroutedSegment, { minLength: 0, maxLength: 6 }), query).map(([segments, search]) => `/${segments.join('/')}${search}`) },
  { weight: 1, arbitrary: fc.constantFrom('*', 'example.com:443', `${ref('host')}`, `http://${ref('host')}/track`, 'http://[::1]/x', '//evil.example/x', '/\\evil.example', 'x', '', '/%', '/%ZZ', '/..', '/../../etc/passwd') },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('/photos/', '/photos/sessions/', '/gallery/', '/booth/', '/api/auth/sign-in/'), fc.array(unroutedSegment, { maxLength: 4 })).map(([prefix, segments]) => prefix + segments.join('/')) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(ref('photoKey'), ref('uploadKey'), `sessions/${ref('liveSession')}/x.jpg`, `sessions/${ref('activeSession')}/${ref('photoId')}.jpg`, 'sessions/../../x.jpg'), fc.boolean())
      .map(([key, signed]) => `/photos/${key}${signed ? `?${ref('uploadQuery')}` : ''}`),
  },
)

// ---------------------------------------------------------------------------------------------
// Methods and headers

const oddMethod = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'SEARCH', 'QUERY', 'PURGE', 'M-SEARCH', 'BREW', 'FOO', 'get', 'Post', 'G ET', 'GET\t', '', 'P\u00d6ST')

function methodFor(operation: Operation): fc.Arbitrary<string> {
  return fc.oneof(SHRINK_ACROSS,
    { weight: 20, arbitrary: fc.constant(operation.method) },
    { weight: operation.method === 'GET' ? 3 : 0, arbitrary: fc.constant('HEAD') },
    { weight: 2, arbitrary: oddMethod },
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
  return fc.oneof(SHRINK_ACROSS,
    { weight: own.length > 0 ? 20 : 0, arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.constant(undefined) },
    { weight: own.length > 0 ? 2 : 8, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.constantFrom(...WRONG_TYPES) },
    { weight: 1, arbitrary: oddString },
  )
}

const authorization = fc.oneof(SHRINK_ACROSS,
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
const clientIp = fc.oneof(SHRINK_ACROSS,
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

const HEADER_NAMES = ['X-Forwarded-For', 'X-Real-IP', 'Forwarded', 'True-Client-IP', 'X-Client-IP', 'Accept', 'Accept-Encoding', 'Accept-Language', 'Content-Encoding', 'Origin', 'Referer', 'User-Agent', 'Cookie', 'Range', 'If-None-Match', 'If-Modified-Since', 'X-HTTP-Method-Override', 'Upgrade', 'Expect', 'Connection', 'Transfer-Encoding', 'TE', 'Trailer', 'Via', 'Max-Forwards', 'Content-MD5', 'X-Request-Id']

const extraHeader: fc.Arbitrary<[string, string]> = fc.oneof(SHRINK_ACROSS,
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...HEADER_NAMES), fc.oneof(SHRINK_ACROSS, oddString, fc.constantFrom('100-continue', 'close', 'keep-alive', 'upgrade', 'websocket', 'h2c', 'gzip', 'br', 'chunked', 'identity', 'gzip, chunked', 'bytes=0-0', 'bytes=5-1', '*', 'for=1.2.3.4;proto=https'))) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(' X-Lead', 'X Space', 'X-Trail ', '', ':', 'X-Ü', 'X\u0000', 'X-A\r\nX-B'), fc.constant('1')) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('X-Fold'), fc.constantFrom('a\r\n b', 'a\r\n\tb', 'a\rb', 'a\nb', 'a\0b')) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('X-Big'), fc.constantFrom(repeat('61', 8_000), repeat('61', 17_000), repeat('61', 70_000))) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('X-Bytes', CLIENT_IP_HEADER, 'Content-Type'), fc.constantFrom(bytes('ff fe'), bytes('c0 af'), bytes('ed a0 80'), bytes('80'), bytes('00'), bytes('7f'))) },
)

function headersFor(operation: Operation | undefined): fc.Arbitrary<[string, string][]> {
  const rarely = <T>(arbitrary: fc.Arbitrary<T>, weight = 1) => fc.oneof(SHRINK_ACROSS, { weight: 12, arbitrary: fc.constant(undefined) }, { weight, arbitrary })
  return fc
    .record({
      host: fc.oneof(SHRINK_ACROSS,
        { weight: 20, arbitrary: fc.constant<string | undefined>(ref('host')) },
        { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'evil.example', `${ref('host')}, evil.example`, 'a b', 'ü.example', `${ref('host')}:99999`) },
      ),
      contentType: contentType(operation?.bodyTypes ?? []),
      authorization: operation?.secured ? fc.oneof(SHRINK_ACROSS, { weight: 10, arbitrary: authorization }, { weight: 1, arbitrary: fc.constant(undefined) }) : rarely(authorization),
      clientIp: rarely(clientIp, 6),
      duplicateClientIp: rarely(clientIp),
      extra: fc.oneof(SHRINK_ACROSS, { weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 3 }) }),
    })
    .map(({ host, contentType: type, authorization: auth, clientIp: ip, duplicateClientIp, extra }) => {
      const headers: [string, string][] = []
      if (host !== undefined) headers.push(['Host', host])
      if (type !== undefined) headers.push(['Content-Type', type])
      if (auth !== undefined) headers.push(['Authorization', auth])
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
  name: fc.oneof(SHRINK_ACROSS,
    { weight: 6, arbitrary: fc.constantFrom('Ada Lovelace', 'Grace', 'Zoë O’Brien', '  Ada   King  Lovelace ', 'Jean-Luc', '李小龍', 'A', 'x'.repeat(100)) },
    { weight: 2, arbitrary: oddString },
  ),
  email: fc.oneof(SHRINK_ACROSS,
    { weight: 4, arbitrary: fc.emailAddress() },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', 'ADA@EXAMPLE.ORG', 'ada@example.org', 'not-an-email', 'a@b', '"a b"@example.org', 'ü@例え.jp', `${'a'.repeat(250)}@b.c`) },
    { weight: 2, arbitrary: oddString },
  ),
  phone: fc.oneof(SHRINK_ACROSS,
    { weight: 4, arbitrary: fc.constantFrom('(415) 555-2671', '+1 415 555 2671', '+44 20 7946 0958', '4155552671', '+14155552671', '555', '', ' ', '+', '+0', 'call me', '٤١٥٥٥٥٢٦٧١', '415-555-2671 ext. 9', '+999 999 999 999 999', '1'.repeat(40)) },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('0', '1', '4', '5', '+', ' ', '-', '(', ')', 'x', '.'), maxLength: 45 }) },
    { weight: 2, arbitrary: oddString },
  ),
  sessionId: fc.oneof(SHRINK_ACROSS, fc.constantFrom(ref('liveSession'), ref('activeSession'), ref('cancelledSession'), ref('emptySession')), oddString),
  eventId: fc.oneof(SHRINK_ACROSS, fc.constantFrom(ref('eventId'), ref('setId')), oddString),
  count: fc.oneof(SHRINK_ACROSS, fc.integer({ min: 1, max: 60 }), fc.integer({ min: -2, max: 200 })),
}

const photoKey = fc.oneof(SHRINK_ACROSS,
  fc.constantFrom(ref('uploadKey'), ref('photoKey'), `sessions/${ref('activeSession')}/${ref('photoId')}.jpg`, `sessions/${ref('activeSession')}/x.jpg`, 'sessions/../x.jpg', `sessions/${ref('activeSession')}/`, ''),
  oddString,
)

const CONTACT_LABELS = ['Name', 'Email', 'Phone', 'Event date', 'Message']
const contactFields = fc.dictionary(
  fc.oneof(SHRINK_ACROSS, { weight: 6, arbitrary: fc.constantFrom(...CONTACT_LABELS) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'name', 'EMAIL', 'Email ', '') }, { weight: 1, arbitrary: oddString }),
  fc.oneof(SHRINK_ACROSS, { weight: 4, arbitrary: fc.constantFrom('Ada', 'ada@example.org', '2026-06-01', 'Hello\nthere', '') }, { weight: 2, arbitrary: oddString }, { weight: 1, arbitrary: fc.integer({ min: 1_990, max: 2_010 }).map((n) => repeat('61', n)) }),
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
      return fc.record(Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fromSchema(value, key)])), { requiredKeys: required })
    }
    case 'array':
      return fc.array(fromSchema(resolved.items ?? {}), { minLength: resolved.minItems ?? 0, maxLength: Math.min(resolved.maxItems ?? 4, 4) })
    case 'string':
      return resolved.pattern ? fc.stringMatching(new RegExp(resolved.pattern)) : fc.string({ minLength: resolved.minLength ?? 0, maxLength: Math.min(resolved.maxLength ?? 20, 20) })
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

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(SHRINK_ACROSS,
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, -0, 1e308, 2 ** 53 + 1, true, false, null, [], {}, [null], { '': null }, '1', 'true'),
  oddString,
  fc.jsonValue({ maxDepth: 3 }),
)

const mutation: fc.Arbitrary<Mutation> = fc.oneof(SHRINK_ACROSS,
  fc.record({ op: fc.constant('retype' as const), at: fc.nat(), value: wrongValue }),
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('add' as const), at: fc.nat(), key: fc.oneof(SHRINK_ACROSS, fc.constantFrom('__proto__', 'constructor', 'extra', 'guests', 'kind', 'id', ''), oddString), value: wrongValue }),
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
    const containers = [root, ...slots.map((slot) => (slot.parent as Record<string | number, unknown>)[slot.key])].filter((item) => item !== null && typeof item === 'object')
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
const otherBody: fc.Arbitrary<Body> = fc.oneof(SHRINK_ACROSS,
  { weight: 3, arbitrary: oddString.map((text) => ({ text })) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
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
    ).map((text) => ({ text })),
  },
  { weight: 2, arbitrary: fc.constantFrom(bytes('ff fe 7b 00 7d 00'), bytes('ed a0 80'), `{"name":"${bytes('c0 af')}"}`, `{"name":"a${bytes('ed a0 80')}"}`, bytes('00 00 00')).map((text) => ({ text })) },
  { weight: 2, arbitrary: size.map((n) => ({ text: `${repeat('5b', n)}${repeat('5d', n)}` })) },
  { weight: 1, arbitrary: size.map((n) => ({ text: repeat('5b', n) })) },
  { weight: 2, arbitrary: bigString().map((text) => ({ text })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((json) => ({ json, cut: 0 })) },
)

function bodyFor(operation: Operation): fc.Arbitrary<Body | null> {
  if (!operation.bodySchema) {
    return fc.oneof(SHRINK_ACROSS, { weight: 8, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: otherBody })
  }
  const json = fc
    .tuple(
      fromSchema(operation.bodySchema),
      fc.oneof(SHRINK_ACROSS, { weight: 3, arbitrary: fc.constant<Mutation[]>([]) }, { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
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
  return fc.oneof(SHRINK_ACROSS, { weight: 12, arbitrary: json }, { weight: 2, arbitrary: oversized }, { weight: 3, arbitrary: otherBody }, { weight: 1, arbitrary: fc.constant(null) })
}

// ---------------------------------------------------------------------------------------------
// Whole requests

const framing: fc.Arbitrary<Framing> = fc.oneof(SHRINK_ACROSS,
  { weight: 30, arbitrary: fc.constant<Framing>('length') },
  { weight: 5, arbitrary: fc.constant<Framing>('chunked') },
  { weight: 2, arbitrary: fc.constantFrom(...FRAMINGS) },
)
const version = fc.oneof(SHRINK_ACROSS, { weight: 30, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.2', 'http/1.1', 'HTTP/1.1 x', 'HTTP/1', '') })
const wireShape = fc.record({
  via: fc.constantFrom<'http' | 'raw'>('http', 'raw'),
  framing,
  version,
  headEncoding: fc.oneof(SHRINK_ACROSS, { weight: 8, arbitrary: fc.constant<'utf8' | 'latin1'>('utf8') }, { weight: 1, arbitrary: fc.constant<'utf8' | 'latin1'>('latin1') }),
  probe: fc.boolean(),
})

function caseFor(operation: Operation): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(methodFor(operation), targetFor(operation), headersFor(operation), bodyFor(operation), wireShape)
    .map(([method, target, headers, body, wire]): FuzzCase => ({ from: operation.id, via: wire.via, method, target, version: wire.version, headers, body, framing: wire.framing, headEncoding: wire.headEncoding, probe: wire.probe }))
}

const unroutedMethod = fc.oneof(SHRINK_ACROSS, { weight: 4, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') }, { weight: 1, arbitrary: oddMethod })

const unroutedCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(unroutedMethod, unroutedTarget, headersFor(undefined), fc.oneof(SHRINK_ACROSS, { weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: otherBody }), wireShape)
  .map(([method, target, headers, body, wire]): FuzzCase => ({ from: 'unrouted', via: wire.via, method, target, version: wire.version, headers, body, framing: wire.framing, headEncoding: wire.headEncoding, probe: wire.probe }))

/** Every request the fuzzer sends: nine in ten from an operation of the document, one in ten unrouted. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(SHRINK_ACROSS,
  { weight: 9, arbitrary: fc.oneof(SHRINK_ACROSS, ...operations.map(caseFor)) },
  { weight: 2, arbitrary: unroutedCase },
)
