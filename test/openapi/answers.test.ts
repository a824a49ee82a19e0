/**
 * Every route's real answers against openapi/openapi.json: each operation is driven into a success
 * and its documented failures, and each answer's status, content type and body are checked against
 * what the document says of that operation (a JSON Schema 2020-12 validator, as OpenAPI 3.1 reads
 * its schemas). A GET is sent again as HEAD: the same status and content type, and no body.
 */
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { loadSettings } from '@photobooth/server/config'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { createTestBoothKey, seedEvent, seedSession, startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import {
  postmarkBounce,
  postmarkDelivery,
  postmarkWebhook,
  twilioCallback,
  twilioInbound,
  twilioStatus,
  webhookSettings,
} from '../support/webhooks.js'
import { sessionCookie, signedInStaff, type StaffSession } from '../support/staff.js'
import { totpCode } from '../support/totp.js'

type Schema = Record<string, unknown>
type MediaType = { schema: Schema }
type ResponseObject = { description: string; content?: Record<string, MediaType> }
type Parameter = { name: string; in: string; schema: Schema & { examples?: unknown[] } }
type Operation = {
  operationId: string
  parameters?: (Parameter | { $ref: string })[]
  requestBody?: { content: Record<string, MediaType> }
  responses: Record<string, ResponseObject>
  security?: Record<string, string[]>[]
}
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } }

const document = JSON.parse(await readFile(resolve(import.meta.dirname, '../../openapi/openapi.json'), 'utf8')) as Document
const METHODS = ['get', 'put', 'post', 'delete', 'patch']
const operations = new Map(
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [operation.operationId, { path, method: method.toUpperCase(), operation }] as const),
  ),
)

const ajv = new Ajv2020({ strict: false, allErrors: true })
// The formats the document uses, checked as the server checks them (zod's email pattern is stricter still).
ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/)
ajv.addFormat('uri', (value: string) => URL.canParse(value))
ajv.addFormat('binary', () => true)
const validators = new Map<Schema, ValidateFunction>()
/** A schema of the document, its `#/components/...` references resolved in the document. */
function validatorOf(schema: Schema): ValidateFunction {
  let validate = validators.get(schema)
  if (!validate) {
    validate = ajv.compile({ ...schema, components: document.components })
    validators.set(schema, validate)
  }
  return validate
}
function resolveRef(schema: Schema): Schema {
  const ref = schema.$ref
  return typeof ref === 'string' ? resolveRef(document.components.schemas[ref.replace('#/components/schemas/', '')]!) : schema
}
const issuesSchema = (
  resolveRef({ $ref: '#/components/schemas/ValidationError' }) as {
    properties: { error: { properties: { message: { contentSchema: Schema } } } }
  }
).properties.error.properties.message.contentSchema

/** Statuses seen per operation, to check at the end that each was driven into a success and its failures. */
const seen = new Map<string, Set<string>>()

/**
 * The answer checked against the operation's document: status documented, content type one of
 * the status's media types, body valid against its schema. Returns the body (parsed when JSON).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a body valid against the document, read as the test needs
async function documented(operationId: string, response: Response): Promise<any> {
  const entry = operations.get(operationId)
  expect(entry, `operation ${operationId}`).toBeDefined()
  const { operation } = entry!
  const status = String(response.status)
  const text = await response.text()
  const where = `${operationId} → ${status} ${text.slice(0, 300)}`
  const answer = operation.responses[status]
  expect(answer, `${where}: status not documented`).toBeDefined()
  if (!seen.has(operationId)) seen.set(operationId, new Set())
  seen.get(operationId)!.add(status)
  if (!answer!.content) {
    expect(text, where).toBe('')
    return undefined
  }
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  expect(Object.keys(answer!.content), `${where}: content type ${contentType}`).toContain(contentType)
  const schema = answer!.content[contentType]!.schema
  if (resolveRef(schema).format === 'binary') return text
  const body = contentType === 'application/json' ? JSON.parse(text) : text
  const validate = validatorOf(schema)
  expect(validate(body) ? [] : validate.errors, where).toEqual([])
  if (contentType === 'application/json' && body?.success === false) {
    // The validator's shape: its message is the JSON the document's contentSchema describes.
    const validateIssues = validatorOf(issuesSchema)
    expect(validateIssues(JSON.parse(body.error.message)) ? [] : validateIssues.errors, where).toEqual([])
  }
  return body
}

let app: TestServer
let bare: TestServer
let staff: StaffSession
let boothKey: string
let gallery: LiveGallery
let seeded: Awaited<ReturnType<typeof seedEvent>>
const ip = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]! || 1}`
const RATE_LIMITS = { windowMs: 60_000, clientIpHeader: 'x-test-client-ip' }

beforeAll(async () => {
  const defaults = loadSettings({ MODE: 'development' })
  // The providers' webhooks on (their credentials and Twilio's token), nothing sent.
  app = await startTestServer({ rateLimits: RATE_LIMITS, delivery: { ...defaults.delivery, ...webhookSettings(), dispatch: false } })
  // No storage and no mail: the 503s.
  bare = await startTestServer({
    rateLimits: RATE_LIMITS,
    storage: { kind: 'none' },
    contact: { ...app.config.contact, mail: undefined },
  } as never)
  staff = await signedInStaff(app)
  boothKey = await createTestBoothKey(app)
  gallery = await makeLiveGallery(app)
  seeded = await seedEvent(app.orm)
}, 120_000)
afterAll(async () => {
  await app?.stop()
  await bare?.stop()
})

type Call = { method?: string; path: string; body?: unknown; headers?: Record<string, string>; server?: TestServer; raw?: string | Buffer }

/** A request as a client of that kind sends it: JSON bodies, a client IP of its own (rate limits). */
async function call({ method = 'GET', path, body, headers = {}, server = app, raw }: Call): Promise<Response> {
  const init: RequestInit = {
    method,
    headers: { 'x-test-client-ip': ip(), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
  }
  if (raw !== undefined) init.body = raw
  else if (body !== undefined) init.body = JSON.stringify(body)
  return fetch(`${server.url}${path}`, init)
}

const asBooth = (key = boothKey) => ({ authorization: `Bearer ${key}` })
const asStaff = (session = staff) => session.headers

/** The answer to a GET checked, then the same request as HEAD: same status and type, no body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as `documented`
async function get(operationId: string, request: Call): Promise<any> {
  const response = await call(request)
  const head = await call({ ...request, method: 'HEAD' })
  const body = await documented(operationId, response)
  expect(head.status, `HEAD ${request.path}`).toBe(response.status)
  expect(head.headers.get('content-type'), `HEAD ${request.path}`).toBe(response.headers.get('content-type'))
  expect(await head.text()).toBe('')
  return body
}

/** The path of an operation with its parameters filled in (each URL-encoded). */
function pathOf(operationId: string, params: Record<string, string>): string {
  return operations.get(operationId)!.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? `missing-${name}`))
}

/** An operation's documented example request body, as a reader of the reference page would try it. */
function exampleBody(operationId: string): unknown {
  const media = Object.values(operations.get(operationId)!.operation.requestBody?.content ?? {})[0]
  return media ? (resolveRef(media.schema).examples as unknown[] | undefined)?.[0] : undefined
}

describe('every answer, against the document', () => {
  it('when an answer is off the document, then the check refuses it', () => {
    expect(validatorOf({ $ref: '#/components/schemas/ErrorBody' })({ message: 'x' })).toBe(false)
    expect(validatorOf({ $ref: '#/components/schemas/Photo' })({ id: 'a', url: 'not a url', width: 1, height: 1 })).toBe(false)
    expect(validatorOf(operations.get('getGallery')!.operation.responses['200']!.content!['application/json']!.schema)({ id: 'a' })).toBe(
      false,
    )
    expect(validatorOf(issuesSchema)([{ code: 'custom', path: [{}], message: 'x' }])).toBe(false)
  })

  it('when a path names nothing, is not a key, or a credential is missing or refused, then the answer is the documented one', async () => {
    for (const [operationId, { path, method, operation }] of operations) {
      const isBooth = path.startsWith('/booth/')
      const isStaff = (operation.security ?? []).some((requirement) => 'staffSession' in requirement)
      const credentials = isBooth ? asBooth() : isStaff ? asStaff() : {}
      const body = exampleBody(operationId)
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!)
      const send = (values: string, headers: Record<string, string> = credentials) =>
        call({ method, path: pathOf(operationId, Object.fromEntries(params.map((name) => [name, values]))), body, headers })
      if (params.length > 0) {
        // Names nothing: 404 (JSON, or the byte routes' plain text).
        const unknown = await send('no-such-thing-at-all')
        expect(unknown.status, operationId).toBe(404)
        await documented(operationId, unknown)
        // Cannot be a key (a control character): the validator's 400, or the byte routes' plain 404.
        await documented(operationId, await send('bad\u0001key'))
      }
      if (isBooth) {
        await documented(operationId, await send('x', {}))
        await documented(operationId, await send('x', { authorization: `Bearer pbk_${'a'.repeat(12)}_${'b'.repeat(43)}` }))
        // Not `Bearer <token>`: a 400 `{ error }`.
        await documented(operationId, await send('x', { authorization: 'Basic abc' }))
        expect([...seen.get(operationId)!]).toEqual(expect.arrayContaining(['401', '400']))
      }
      if (isStaff) {
        await documented(operationId, await send('x', {}))
        if (method !== 'GET') {
          const refused = await send('x', { ...asStaff(), origin: 'https://elsewhere.example' })
          await documented(operationId, refused)
          expect(refused.status, operationId).toBe(403)
        }
      }
    }
  })

  it('kiosk: context, registration (201, 400 in both shapes, 404, 429)', async () => {
    const [set] = seeded.sets
    await get('getKioskContext', { path: pathOf('getKioskContext', { eventSlug: seeded.event.slug, setSlug: set!.slug }) })
    const register = (body: unknown, headers?: Record<string, string>) =>
      call({ method: 'POST', path: pathOf('registerGuests', { setId: set!.id }), body, headers })
    expect((await register(exampleBody('registerGuests'))).status).toBe(201)
    await documented('registerGuests', await register({ guests: [{ name: 'Ada', email: '' }] }))
    await documented('registerGuests', await register({ guests: [] }))
    await documented('registerGuests', await register({ guests: [{ name: 'Ada', email: 'not-an-email' }] }))
    await documented('registerGuests', await register({ guests: [{ name: 'Ada', email: 'ada@example.org' }] }))
    const client = { 'x-test-client-ip': ip() }
    let last: Response | undefined
    for (let i = 0; i <= 60; i++) last = await register({ guests: [] }, client)
    expect(last!.status).toBe(429)
    await documented('registerGuests', last!)
    expect([...seen.get('registerGuests')!].sort()).toEqual(expect.arrayContaining(['201', '400', '404', '429']))
  })

  it('gallery: the event page, the gallery, a photo and the zip (200, plain 404, 429, 503)', async () => {
    const live = await seedEvent(app.orm)
    await seedSession(app.orm, live.sets[0]!.id, { photos: 1 })
    await get('getEventPage', { path: pathOf('getEventPage', { slug: live.event.slug }) })
    await get('getGallery', { path: pathOf('getGallery', { sessionId: gallery.sessionId }) })
    const download = { path: pathOf('downloadPhoto', { sessionId: gallery.sessionId, photoId: gallery.photos[0]!.id }) }
    await get('downloadPhoto', download)
    await get('downloadZip', { path: pathOf('downloadZip', { sessionId: gallery.sessionId }) })
    await get('downloadPhoto', { ...download, server: bare })
    await get('downloadZip', { path: pathOf('downloadZip', { sessionId: gallery.sessionId }), server: bare })
    const client = { 'x-test-client-ip': ip() }
    let last: Response | undefined
    for (let i = 0; i <= 60; i++) last = await call({ path: pathOf('downloadZip', { sessionId: 'nothing' }), headers: client })
    expect(last!.status).toBe(429)
    await documented('downloadZip', last!)
    expect([...seen.get('downloadPhoto')!].sort()).toEqual(['200', '404', '503'])
    expect([...seen.get('downloadZip')!].sort()).toEqual(['200', '404', '429', '503'])
  })

  it('operations: the health probes (200, never cached)', async () => {
    for (const [operationId, path, body] of [
      ['live', '/healthz', { status: 'ok' }],
      ['ready', '/readyz', { status: 'ready' }],
    ] as const) {
      const response = await fetch(`${app.url}${path}`)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(await documented(operationId, response)).toEqual(body)
    }
  })

  it('tracking and the contact form (204, 200, 400, 413, 429, 503)', async () => {
    await documented('track', await call({ method: 'POST', path: '/track', body: { kind: 'view', sessionId: gallery.sessionId } }))
    await documented(
      'track',
      await call({
        method: 'POST',
        path: '/track',
        raw: JSON.stringify({ kind: 'share', sessionId: gallery.sessionId, channel: 'copy' }),
        headers: { 'content-type': 'text/plain' },
      }),
    )
    await documented('track', await call({ method: 'POST', path: '/track', body: { kind: 'view' } }))
    await documented('track', await call({ method: 'POST', path: '/track', body: { kind: 'view', sessionId: 'nothing' } }))
    const client = { 'x-test-client-ip': ip() }
    let last: Response | undefined
    for (let i = 0; i <= 60; i++) last = await call({ method: 'POST', path: '/track', body: {}, headers: client })
    await documented('track', last!)
    expect([...seen.get('track')!].sort()).toEqual(['204', '400', '429'])

    await documented('contact', await call({ method: 'POST', path: '/contact', body: exampleBody('contact') }))
    await documented('contact', await call({ method: 'POST', path: '/contact', body: { fields: { Nonsense: 'x' } } }))
    await documented('contact', await call({ method: 'POST', path: '/contact', body: { fields: { Message: 'x'.repeat(17 * 1024) } } }))
    await documented('contact', await call({ method: 'POST', path: '/contact', body: exampleBody('contact'), server: bare }))
    for (let i = 0; i <= 60; i++) last = await call({ method: 'POST', path: '/contact', body: {}, headers: client })
    await documented('contact', last!)
    expect([...seen.get('contact')!].sort()).toEqual(['200', '400', '413', '429', '503'])
  })

  it('booth: events, queue, uploads, completion and cancelling (200, 400, 404, 409, 422, 503)', async () => {
    const { sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const booth = asBooth()
    await get('listBoothEvents', { path: '/booth/events', headers: booth })
    const active = await seedSession(app.orm, setId, { status: 'active' })
    await get('listBoothQueue', { path: pathOf('listBoothQueue', { setId }), headers: booth })

    const uploadsPath = pathOf('createUploads', { sessionId: active.id })
    const uploads = await documented('createUploads', await call({ method: 'POST', path: uploadsPath, body: { count: 2 }, headers: booth }))
    await documented('createUploads', await call({ method: 'POST', path: uploadsPath, body: { count: 0 }, headers: booth }))
    await documented('createUploads', await call({ method: 'POST', path: uploadsPath, body: { count: 1 }, headers: booth, server: bare }))
    const [first, second] = uploads.uploads as { key: string; url: string; headers: Record<string, string> }[]
    const put = await fetch(first!.url, { method: 'PUT', headers: first!.headers, body: makeJpeg(8, 8, 1) })
    expect(put.status).toBe(200)

    const completePath = pathOf('completeSession', { sessionId: active.id })
    const complete = (photos: string[], server = app) =>
      call({ method: 'POST', path: completePath, body: { photos }, headers: booth, server })
    await documented('completeSession', await complete(['sessions/elsewhere/x.jpg']))
    await documented('completeSession', await complete([first!.key, first!.key]))
    const missing = await documented('completeSession', await complete([first!.key, second!.key]))
    expect(missing.missing).toEqual([second!.key])
    await documented('completeSession', await complete([first!.key], bare))
    await documented('completeSession', await complete([first!.key]))
    await documented('completeSession', await complete([first!.key]))
    await documented('createUploads', await call({ method: 'POST', path: uploadsPath, body: { count: 1 }, headers: booth }))
    expect([...seen.get('completeSession')!].sort()).toEqual(expect.arrayContaining(['200', '400', '404', '409', '422', '503']))
    expect([...seen.get('createUploads')!].sort()).toEqual(expect.arrayContaining(['200', '400', '404', '409', '503']))

    const other = await seedSession(app.orm, setId, { status: 'active' })
    const cancelPath = pathOf('cancelSession', { sessionId: other.id })
    await documented('cancelSession', await call({ method: 'POST', path: cancelPath, headers: booth }))
    await documented('cancelSession', await call({ method: 'POST', path: cancelPath, headers: booth }))
    expect([...seen.get('cancelSession')!].sort()).toEqual(expect.arrayContaining(['200', '404', '409']))

    // Claims (issue 33): the next session, none left, a named one held by another booth, a release.
    const claimsPath = pathOf('claimNextSession', { setId })
    await documented('claimNextSession', await call({ method: 'POST', path: claimsPath, body: { holder: 'A' }, headers: booth }))
    await documented('claimNextSession', await call({ method: 'POST', path: claimsPath, body: { holder: 'A' }, headers: booth }))
    const held = await seedSession(app.orm, setId, { status: 'active' })
    const claimPath = pathOf('claimSession', { sessionId: held.id })
    await documented('claimSession', await call({ method: 'POST', path: claimPath, body: { holder: 'A' }, headers: booth }))
    await documented('claimSession', await call({ method: 'POST', path: claimPath, body: { holder: 'B' }, headers: booth }))
    const releasePath = pathOf('releaseSession', { sessionId: held.id })
    await documented('releaseSession', await call({ method: 'POST', path: releasePath, body: { holder: 'B' }, headers: booth }))
    await documented('releaseSession', await call({ method: 'POST', path: releasePath, body: { holder: 'A' }, headers: booth }))
    expect([...seen.get('claimSession')!].sort()).toEqual(expect.arrayContaining(['200', '409']))
    expect([...seen.get('releaseSession')!].sort()).toEqual(expect.arrayContaining(['200', '409']))
  })

  it('staff sign-in: sign in (200, 400, 401, 429), the session, a password change and signing out', async () => {
    const member = await signedInStaff(app, 'Signing In')
    const origin = asStaff().origin
    const signIn = (body: unknown, client = ip()) =>
      call({ method: 'POST', path: '/api/auth/sign-in/email', body, headers: { origin, 'x-test-client-ip': client } })
    const signedIn = await signIn({ email: member.email, password: member.password })
    await documented('signIn', signedIn)
    await documented('signIn', await signIn({ email: member.email, password: 'wrong password' }))
    await documented('signIn', await signIn({ email: member.email }))
    const client = ip()
    let last: Response | undefined
    for (let i = 0; i <= 10; i++) last = await signIn({ email: member.email, password: 'wrong password' }, client)
    await documented('signIn', last!)
    expect([...seen.get('signIn')!].sort()).toEqual(['200', '400', '401', '429'])

    await get('getSignedInSession', { path: '/api/auth/get-session', headers: asStaff(member) })
    await get('getSignedInSession', { path: '/api/auth/get-session' })
    const change = (body: unknown) => call({ method: 'POST', path: '/api/auth/change-password', body, headers: asStaff(member) })
    await documented('changePassword', await change({ currentPassword: 'not the password', newPassword: 'amber walrus lantern fjord' }))
    const changed = await change({ currentPassword: member.password, newPassword: 'amber walrus lantern fjord' })
    await documented('changePassword', changed)
    // The change ended every other session and renewed this one: signing out is the renewed session's.
    const renewed = { ...asStaff(member), cookie: sessionCookie(changed) }
    await documented('signOut', await call({ method: 'POST', path: '/api/auth/sign-out', headers: renewed }))
    expect([...seen.get('changePassword')!].sort()).toEqual(expect.arrayContaining(['200', '400', '401', '403']))
  })

  it('staff: members, events, sets, booth keys, sessions, messages, statistics and the export', async () => {
    const headers = asStaff()
    const send = (operationId: string, params: Record<string, string>, body?: unknown, query = '') =>
      call({ method: operations.get(operationId)!.method, path: pathOf(operationId, params) + query, body, headers })

    await get('getCurrentStaffMember', { path: '/staff/me', headers })
    await get('listStaffMembers', { path: '/staff/members', headers })
    const email = `invited-${randomBytes(4).toString('hex')}@example.org`
    const invited = await documented('inviteStaffMember', await send('inviteStaffMember', {}, { email, name: 'Invited Member' }))
    await documented('inviteStaffMember', await send('inviteStaffMember', {}, { email, name: 'Invited Again' }))
    await documented('inviteStaffMember', await send('inviteStaffMember', {}, { email: 'not-an-email', name: 'X' }))
    await documented('setStaffRole', await send('setStaffRole', { memberId: invited.member.id }, { role: 'manager' }))
    await documented('setStaffRole', await send('setStaffRole', { memberId: invited.member.id }, { role: 'admin' }))
    await documented('removeStaffMember', await send('removeStaffMember', { memberId: staff.memberId }))
    await documented('removeStaffMember', await send('removeStaffMember', { memberId: invited.member.id }))
    await get('listAuditEvents', { path: `/staff/audit?memberId=${staff.memberId}&limit=5`, headers })
    await get('listAuditEvents', { path: '/staff/audit?limit=0', headers })

    const slug = `answers-${randomBytes(4).toString('hex')}`
    const event = await documented('createEvent', await send('createEvent', {}, { slug, name: 'Answers', startAt: Date.UTC(2026, 6, 1) }))
    await documented('createEvent', await send('createEvent', {}, { slug, name: 'Taken', startAt: Date.UTC(2026, 6, 1) }))
    await documented('createEvent', await send('createEvent', {}, { slug: 'Not A Slug', name: 'X', startAt: 0 }))
    await get('listStaffEvents', { path: '/staff/events', headers })
    await get('getStaffEvent', { path: pathOf('getStaffEvent', { eventId: event.id }), headers })
    await documented('updateEvent', await send('updateEvent', { eventId: event.id }, exampleBody('updateEvent')))
    await documented('updateEvent', await send('updateEvent', { eventId: event.id }, {}))
    const set = await documented('createSet', await send('createSet', { eventId: event.id }, exampleBody('createSet')))
    await documented('createSet', await send('createSet', { eventId: event.id }, exampleBody('createSet')))
    await documented('updateSet', await send('updateSet', { setId: set.id }, exampleBody('updateSet')))
    await get('getEventStats', { path: pathOf('getEventStats', { eventId: event.id }), headers })
    await get('exportGuests', { path: pathOf('exportGuests', { eventId: event.id }), headers })

    // The example's event does not exist here (404); a key for this test's event does.
    await documented('createBoothKey', await send('createBoothKey', {}, exampleBody('createBoothKey')))
    const key = await documented('createBoothKey', await send('createBoothKey', {}, { name: 'Answers booth', eventIds: [event.id] }))
    await get('listBoothKeys', { path: '/staff/booth-keys', headers })
    await documented('revokeBoothKey', await send('revokeBoothKey', { keyId: key.id }))

    // Sessions: the live gallery's, with its queued messages.
    const eventId = (
      await app.orm.em
        .fork()
        .execute<{ event_id: string }[]>('select s.event_id from session x join event_set s on s.id = x.set_id where x.id = ?', [
          gallery.sessionId,
        ])
    )[0]!.event_id
    const page = await get('listStaffSessions', { path: pathOf('listStaffSessions', { eventId }) + '?limit=1', headers })
    expect(page.sessions).toHaveLength(1)
    await get('listStaffSessions', { path: pathOf('listStaffSessions', { eventId }) + '?cursor=bogus', headers })
    await get('getStaffSession', { path: pathOf('getStaffSession', { sessionId: gallery.sessionId }), headers })
    const guestId = (await get('getStaffSession', { path: pathOf('getStaffSession', { sessionId: gallery.sessionId }), headers })).guests[0]
      .id
    await get('getGuestContact', { path: pathOf('getGuestContact', { guestId }), headers })
    await get('getGuestContact', { path: pathOf('getGuestContact', { guestId: 'AAAAAAAAAAAAAAAAAAAAAA' }), headers })
    await get('getSessionStats', { path: pathOf('getSessionStats', { sessionId: gallery.sessionId }), headers })
    await documented('resendGalleryLinks', await send('resendGalleryLinks', { sessionId: gallery.sessionId }))
    const session = await documented('getStaffSession', await send('getStaffSession', { sessionId: gallery.sessionId }))
    const message = session.guests[0].messages[0]
    await documented('retryMessage', await send('retryMessage', { messageId: message.id }))
    await app.orm.em.fork().execute(`update outbox_message set status = 'failed' where id = ?`, [message.id])
    await documented('retryMessage', await send('retryMessage', { messageId: message.id }))
    await app.orm.em.fork().execute(`update outbox_message set status = 'failed' where session_id = ?`, [gallery.sessionId])
    await documented('retrySessionMessages', await send('retrySessionMessages', { sessionId: gallery.sessionId }))
    await documented('retryEventMessages', await send('retryEventMessages', { eventId }))

    // One person's rights: a guest registered for it, found, exported and erased.
    const erasable = `erin.${randomBytes(4).toString('hex')}@example.org`
    await documented(
      'registerGuests',
      await send('registerGuests', { setId: set.id }, { guests: [{ name: 'Erin Erase', email: erasable }] }),
    )
    const { people } = await get('findPeople', { path: `/staff/people?email=${encodeURIComponent(erasable)}`, headers })
    await get('exportPerson', { path: pathOf('exportPerson', { customerId: people[0].id }), headers })
    await documented('erasePerson', await send('erasePerson', { customerId: people[0].id }))
    await documented('erasePerson', await send('erasePerson', { customerId: people[0].id }))

    const active = await seedSession(app.orm, set.id, { status: 'active' })
    await documented('resendGalleryLinks', await send('resendGalleryLinks', { sessionId: active.id }))
    await documented('deleteSet', await send('deleteSet', { setId: set.id }))
    await documented('deleteEvent', await send('deleteEvent', { eventId: event.id }))
    await documented('cancelStaffSession', await send('cancelStaffSession', { sessionId: active.id }))
    await documented('cancelStaffSession', await send('cancelStaffSession', { sessionId: active.id }))
    await documented('deleteSession', await send('deleteSession', { sessionId: active.id }))
    await documented('deleteSet', await send('deleteSet', { setId: set.id }, undefined, '?force=true'))
    await documented('deleteEvent', await send('deleteEvent', { eventId: event.id }))

    for (const [operationId, statuses] of Object.entries({
      inviteStaffMember: ['201', '400', '409'],
      removeStaffMember: ['200', '409'],
      createEvent: ['201', '400', '409'],
      updateEvent: ['200', '400'],
      createSet: ['201', '409'],
      listStaffSessions: ['200', '400'],
      retryMessage: ['200', '409'],
      resendGalleryLinks: ['200', '409'],
      cancelStaffSession: ['200', '409'],
      deleteSet: ['200', '409'],
      deleteEvent: ['200', '409'],
    })) {
      expect([...seen.get(operationId)!], operationId).toEqual(expect.arrayContaining(statuses))
    }
  })

  it("webhooks and the suppression list: the providers' callbacks (200, 400, 401, 403), staff's lookup and lift (200, 400, 404)", async () => {
    const email = `webhook.${randomBytes(4).toString('hex')}@example.org`
    const sent = { outboxMessageId: 'no-such-message', providerMessageId: 'no-such-id', email }
    await documented('postmarkWebhook', await postmarkWebhook(app, postmarkDelivery(sent)))
    await documented('postmarkWebhook', await postmarkWebhook(app, postmarkBounce(sent)))
    await documented('postmarkWebhook', await postmarkWebhook(app, postmarkBounce(sent), null))
    await documented('postmarkWebhook', await postmarkWebhook(app, { RecordType: ['Bounce'] }))
    await documented(
      'twilioStatusCallback',
      await twilioCallback(app, '/webhooks/twilio/status?message=x', twilioStatus('SMx', '+12025550123', 'delivered')),
    )
    await documented(
      'twilioStatusCallback',
      await twilioCallback(app, '/webhooks/twilio/status', twilioStatus('SMx', '+12025550123', 'sent'), { signature: null }),
    )
    await documented('twilioStatusCallback', await twilioCallback(app, '/webhooks/twilio/status', { MessageStatus: 'sent' }))
    await documented('twilioInboundMessage', await twilioCallback(app, '/webhooks/twilio/inbound', twilioInbound('+12025550123', 'STOP')))
    await documented(
      'twilioInboundMessage',
      await twilioCallback(app, '/webhooks/twilio/inbound', twilioInbound('+12025550123', 'STOP'), { token: 'forged' }),
    )

    const headers = asStaff()
    await get('findSuppressions', { path: `/staff/suppressions?email=${encodeURIComponent(email)}`, headers })
    await get('findSuppressions', { path: '/staff/suppressions?phone=%2B12025550123', headers })
    await get('findSuppressions', { path: '/staff/suppressions?phone=nope', headers })
    const lift = () => call({ method: 'POST', path: '/staff/suppressions/lift', body: { email }, headers })
    await documented('liftSuppression', await lift())
    await documented('liftSuppression', await lift())
    for (const [operationId, statuses] of Object.entries({
      postmarkWebhook: ['200', '400', '401'],
      twilioStatusCallback: ['200', '400', '403'],
      twilioInboundMessage: ['200', '403'],
      findSuppressions: ['200', '400'],
      liftSuppression: ['200', '404'],
    })) {
      expect([...seen.get(operationId)!], operationId).toEqual(expect.arrayContaining(statuses))
    }
  })

  it('the team and a second factor: settings (200, 400, 409), enable, verify by app and by backup code, disable (200, 400, 401)', async () => {
    const member = await signedInStaff(app, 'Second Factor')
    const post = (path: string, body: unknown, cookie = member.cookie) =>
      call({ method: 'POST', path, body, headers: { cookie, origin: app.config.publicUrl } })
    await get('getTeamSettings', { path: '/staff/team', headers: member.headers })
    await documented(
      'updateTeamSettings',
      await call({ method: 'PATCH', path: '/staff/team', body: { requireTwoFactor: 'yes' }, headers: member.headers }),
    )
    await documented(
      'updateTeamSettings',
      await call({ method: 'PATCH', path: '/staff/team', body: { requireTwoFactor: true }, headers: member.headers }),
    )
    await documented(
      'updateTeamSettings',
      await call({ method: 'PATCH', path: '/staff/team', body: { requireTwoFactor: false }, headers: member.headers }),
    )

    await documented('enableTwoFactor', await post('/api/auth/two-factor/enable', { password: 'not the password' }))
    const { totpURI, backupCodes } = await documented(
      'enableTwoFactor',
      await post('/api/auth/two-factor/enable', { password: member.password }),
    )
    await documented('verifyTotp', await post('/api/auth/two-factor/verify-totp', { code: 'nope' }))
    const confirmed = await post('/api/auth/two-factor/verify-totp', { code: totpCode(totpURI) })
    await documented('verifyTotp', confirmed)
    const cookie = sessionCookie(confirmed)
    const pending = (await post('/api/auth/sign-in/email', { email: member.email, password: member.password }, '')).headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ')
    const byBackup = await post('/api/auth/two-factor/verify-backup-code', { code: backupCodes[0] }, pending)
    await documented('verifyBackupCode', byBackup)
    await documented('verifyBackupCode', await post('/api/auth/two-factor/verify-backup-code', { code: backupCodes[0] }, pending))
    await documented('disableTwoFactor', await post('/api/auth/two-factor/disable', { password: member.password }, sessionCookie(byBackup)))
    await documented('disableTwoFactor', await post('/api/auth/two-factor/disable', { password: member.password }, cookie))
    for (const [operationId, statuses] of Object.entries({
      updateTeamSettings: ['200', '400', '409'],
      enableTwoFactor: ['200', '400'],
      verifyTotp: ['200', '401'],
      verifyBackupCode: ['200', '401'],
      disableTwoFactor: ['200'],
    })) {
      expect([...seen.get(operationId)!], operationId).toEqual(expect.arrayContaining(statuses))
    }
  })

  it('when every route was driven, then each operation answered a documented success', () => {
    if (process.env.DEBUG_ANSWERS)
      console.log(JSON.stringify(Object.fromEntries([...seen].map(([id, statuses]) => [id, [...statuses].sort().join(' ')])), null, 1))
    const missing = [...operations.keys()].filter(
      (operationId) => ![...(seen.get(operationId) ?? [])].some((status) => status.startsWith('2')),
    )
    expect(missing).toEqual([])
  })
})
