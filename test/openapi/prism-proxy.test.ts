/**
 * Stoplight Prism as a validating proxy in front of the service (`prism proxy openapi/openapi.json
 * <service> --errors`): every request of the kiosk, booth, gallery, tracking and staff flows goes
 * through it, and Prism checks the request and the service's real answer against the document. A
 * request it finds invalid is refused (422 `application/problem+json`); an answer outside the
 * document is listed in `sl-violations` (and turned into a 500 with `--errors`). Both must never
 * happen to these flows, expected refusals of the service (400, 404, 409, 422) included.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

import { createClient, isDefinedError, safe } from '@photobooth/sdk'
import { createStaffMember } from '@photobooth/server/modules/members/members.service'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { contactPage, startFakeCms, type FakeCms } from '../support/fake-cms.js'
import { contactMailVia, startFakePostmark, type FakePostmark } from '../support/fake-providers.js'
import { seedEvent, startTestServer, uniqueSlug, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { freePort } from '../support/processes.js'

const DOCUMENT = resolve(import.meta.dirname, '../../openapi/openapi.json')
const PRISM_CLI = resolve(dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')), 'dist/index.js')

/** One answer that passed through Prism: what was asked, its status, what Prism made of it, and a refusal's body. */
type Answer = { call: string; status: number; violations: unknown[]; refused: boolean; refusal?: string }

let app: TestServer
let prism: ChildProcess
let prismUrl: string
let cms: FakeCms
let postmark: FakePostmark
const answers: Answer[] = []
let checked = 0

/** fetch through Prism, recording each answer that came through it (uploads go to storage, not through it). */
const throughPrism: typeof fetch = async (input, init) => {
  const request = new Request(input, init)
  const response = await fetch(request)
  const url = new URL(request.url)
  if (url.origin === prismUrl) {
    const violations = response.headers.get('sl-violations')
    answers.push({
      call: `${request.method} ${url.pathname}`,
      status: response.status,
      violations: violations ? (JSON.parse(violations) as unknown[]) : [],
      refused: (response.headers.get('content-type') ?? '').startsWith('application/problem+json'),
      refusal: response.status >= 400 && request.method !== 'HEAD' ? await response.clone().text() : undefined,
    })
  }
  return response
}

/** The answers since the last check: none refused by Prism, none outside the document. */
function expectAllValid(): Answer[] {
  const fresh = answers.slice(checked)
  checked = answers.length
  expect(fresh.filter((answer) => answer.refused || answer.violations.length > 0)).toEqual([])
  return fresh
}

const statusesOf = (list: Answer[]) => list.map((answer) => `${answer.call} ${answer.status}`)

type ExampleDocument = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>
}

type OpenApiDocument = {
  paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, { schema?: { required?: string[] } }> }> } }>
}

/** Prism proxying to `upstream` on 127.0.0.1:`port`, with the document as it is or (written to `path`) another. */
async function startPrism(port: number, upstream: string, path = DOCUMENT, document?: OpenApiDocument): Promise<ChildProcess> {
  if (document) await writeFile(path, JSON.stringify(document))
  const child = spawn(process.execPath, [PRISM_CLI, 'proxy', path, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const listening = new Promise<void>((resolveListening, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      if (/Prism is listening/.test(output)) resolveListening()
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.once('exit', (code) => reject(new Error(`Prism exited (${code}) before listening:\n${output}`)))
  })
  await listening
  return child
}

beforeAll(async () => {
  const port = await freePort()
  prismUrl = `http://127.0.0.1:${port}`
  cms = await startFakeCms(contactPage(['Name', 'Email', 'Message']))
  postmark = await startFakePostmark()
  app = await startTestServer({
    // The staff SDK sends its base URL's origin (Prism's) with each change, as a page of the service would.
    staffAuth: { secret: randomBytes(32).toString('base64url'), trustedOrigins: [prismUrl] },
    contact: {
      form: { kind: 'url', url: cms.url, labelsPath: 'data.attributes.form[].label', ttlMs: 300_000 },
      mail: contactMailVia(postmark.url),
    },
  } as never)
  prism = await startPrism(port, app.url)
})

async function stopPrism(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

afterAll(async () => {
  await stopPrism(prism)
  await app?.stop()
  await cms?.close()
  await postmark?.close()
  console.log(`Prism proxy: ${answers.length} answers, ${answers.filter((answer) => answer.violations.length > 0).length} with violations`)
})

describe('Prism as a validating proxy over the service', () => {
  it('when a kiosk loads its set, registers guests and a visitor writes through the contact form, then every request and answer fits the document', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const kiosk = createClient({ baseUrl: prismUrl, fetch: throughPrism })

    const context = await kiosk.kiosk.getContext({ eventSlug: event.slug, setSlug: sets[0]!.slug })
    const session = await kiosk.kiosk.registerGuests(
      {
        params: { setId: context.set.id },
        body: {
          guests: [
            { name: 'Ada Lovelace', email: 'ada@example.org' },
            { name: 'Grace', phone: '(415) 555-2671' },
          ],
        },
      },
      { context: { idempotencyKey: randomBytes(16).toString('hex') } },
    )
    expect(session).toMatchObject({ label: 'Ada & Grace', status: 'active' })

    // The service's own refusals, which the document declares: an unknown set, a phone that is none, a guest without contact.
    const [unknown] = await safe(kiosk.kiosk.getContext({ eventSlug: event.slug, setSlug: 'nothing-here' }))
    expect(isDefinedError(unknown) && [unknown.status, unknown.message]).toEqual([404, 'no such set'])
    const [badPhone] = await safe(
      kiosk.kiosk.registerGuests({ params: { setId: context.set.id }, body: { guests: [{ name: 'Ada', phone: '12' }] } }),
    )
    expect(isDefinedError(badPhone) && [badPhone.status, badPhone.message]).toEqual([400, "This doesn't look like a phone number: 12"])
    const [noContact] = await safe(
      kiosk.kiosk.registerGuests({ params: { setId: context.set.id }, body: { guests: [{ name: 'Ada', email: '' }] } }),
    )
    expect(isDefinedError(noContact) && [noContact.status, noContact.message]).toEqual([400, 'Ada needs an email or a phone number'])

    expect(await kiosk.contact.submit({ body: { fields: { Name: 'Ada', Email: 'ada@example.org', Message: 'Hello' } } })).toEqual({
      ok: true,
    })
    const [unknownField] = await safe(kiosk.contact.submit({ body: { fields: { Name: 'Ada', Fax: '555' } } }))
    expect(isDefinedError(unknownField) && [unknownField.status, unknownField.message]).toEqual([400, 'Unknown fields: Fax'])

    expect(statusesOf(expectAllValid())).toEqual([
      `GET /events/${event.slug}/sets/${sets[0]!.slug} 200`,
      `POST /sets/${context.set.id}/sessions 201`,
      `GET /events/${event.slug}/sets/nothing-here 404`,
      `POST /sets/${context.set.id}/sessions 400`,
      `POST /sets/${context.set.id}/sessions 400`,
      'POST /contact 200',
      'POST /contact 400',
    ])
  })

  it('when staff set up an event, a booth works its queue and visitors open the gallery and send beacons, then every request and answer fits the document', async () => {
    const email = `prism-${randomBytes(4).toString('hex')}@example.org`
    await createStaffMember({ auth: app.auth }, { email, name: 'Prism', password: 'amber walrus lantern fjord', role: 'owner' })
    const staff = createClient({ baseUrl: prismUrl, staffCookies: true, fetch: throughPrism })
    await staff.staff.auth.signIn({ body: { email, password: 'amber walrus lantern fjord' } })
    const slug = uniqueSlug()
    const event = await staff.staff.events.create({
      body: { slug, name: 'Through Prism', startAt: Date.parse('2026-07-04T18:00:00Z'), isPrivate: false },
    })
    const set = await staff.staff.sets.create({ params: { eventId: event.id }, body: { slug: 'wall', name: 'Wall' } })
    expect((await staff.staff.events.list()).events.map((listed) => listed.id)).toContain(event.id)
    const { key } = await staff.staff.boothKeys.create({ body: { name: 'Prism booth', eventIds: [event.id] } })

    // A kiosk registers two sessions; the booth completes the first with two photos and cancels the second.
    const kiosk = createClient({ baseUrl: prismUrl, fetch: throughPrism })
    const register = (name: string) =>
      kiosk.kiosk.registerGuests({ params: { setId: set.id }, body: { guests: [{ name, email: 'guest@example.org' }] } })
    const first = await register('Ada Lovelace')
    const second = await register('Grace Hopper')
    const booth = createClient({ baseUrl: prismUrl, boothKey: key, fetch: throughPrism })
    expect((await booth.booth.listEvents()).events.map((listed) => listed.id)).toEqual([event.id])
    expect((await booth.booth.listQueue({ setId: set.id })).sessions.map((queued) => queued.id)).toEqual([first.id, second.id])
    const { uploads } = await booth.booth.createUploads({ params: { sessionId: first.id }, body: { count: 2 } })
    for (const [index, upload] of uploads.entries()) {
      // Presigned uploads go to storage (here the service's local bucket), not through the API's proxy.
      const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: makeJpeg(30 + index, 20, index) })
      expect(put.status).toBe(200)
    }
    const keys = uploads.map((upload) => upload.key)
    const [missing] = await safe(
      booth.booth.complete({ params: { sessionId: first.id }, body: { photos: [...keys, keys[0]!.replace(/\.jpg$/, '-none.jpg')] } }),
    )
    expect(isDefinedError(missing) && missing.status).toBe(422)
    const completed = await booth.booth.complete({ params: { sessionId: first.id }, body: { photos: keys } })
    const [again] = await safe(booth.booth.complete({ params: { sessionId: first.id }, body: { photos: keys } }))
    expect(isDefinedError(again) && again.status).toBe(409)
    expect(await booth.booth.cancel({ params: { sessionId: second.id } })).toEqual({ id: second.id, status: 'cancelled' })

    // Visitors: the gallery, the event page, a photo and the zip, and the beacons their pages send.
    const gallery = await kiosk.gallery.getGallery({ sessionId: first.id })
    expect(gallery.photos.map((photo) => photo.id)).toEqual(completed.photos.map((photo) => photo.id))
    expect((await kiosk.gallery.getEventPage({ slug })).sets[0]!.sessions.map((listed) => listed.id)).toEqual([first.id])
    const photo = await kiosk.gallery.downloadPhoto({ sessionId: first.id, photoId: gallery.photos[0]!.id })
    expect((await new Response(photo.body).arrayBuffer()).byteLength).toBeGreaterThan(0)
    const zip = await kiosk.gallery.downloadZip({ sessionId: first.id })
    expect((await new Response(zip.body).arrayBuffer()).byteLength).toBeGreaterThan(0)
    // HEAD, as a download manager sends it: the GET's status and headers, no body. Only the byte
    // routes: Prism 5 reads the body of any answer typed application/json, a HEAD's too, and fails
    // on the empty one (a 500 'invalid json response body'); the JSON reads' HEADs are checked
    // against the document without it (answers.test.ts).
    for (const [path, status] of [
      [`/gallery/${first.id}/photos/${gallery.photos[0]!.id}/download`, 200],
      [`/gallery/${first.id}/zip`, 200],
      [`/gallery/${second.id}/zip`, 404],
    ] as const) {
      const head = await throughPrism(`${prismUrl}${path}`, { method: 'HEAD' })
      expect([path, head.status, await head.text()]).toEqual([path, status, ''])
    }
    const [notLive] = await safe(kiosk.gallery.getGallery({ sessionId: second.id }))
    expect(isDefinedError(notLive) && [notLive.status, notLive.message]).toEqual([404, 'no such gallery'])
    // As navigator.sendBeacon sends a string: text/plain, the JSON document as its text.
    const beacon = (body: object) =>
      throughPrism(`${prismUrl}/track`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        body: JSON.stringify(body),
      })
    expect((await beacon({ kind: 'view', sessionId: first.id })).status).toBe(204)
    expect((await beacon({ kind: 'view', eventId: event.id })).status).toBe(204)
    expect((await beacon({ kind: 'share', sessionId: first.id, channel: 'copy' })).status).toBe(204)
    const nothing = await beacon({ kind: 'view', sessionId: 'AAAAAAAAAAAAAAAAAAAAAA' })
    expect([nothing.status, await nothing.json()]).toEqual([400, { error: 'no such session or event', code: 'no_such_target' }])
    const offVariants = await beacon({ kind: 'like', sessionId: first.id })
    expect([offVariants.status, await offVariants.json()]).toEqual([400, { error: 'bad body', code: 'bad_body' }])

    // Staff read what happened, export the guests and sign out.
    expect((await staff.staff.sessions.list({ eventId: event.id })).sessions.map((listed) => listed.status).sort()).toEqual([
      'cancelled',
      'completed',
    ])
    expect(await staff.staff.events.stats({ eventId: event.id })).toMatchObject({ views: 2 })
    const csv = await staff.staff.events.exportGuests({ eventId: event.id })
    expect(await new Response(csv.body).text()).toContain('Ada')
    await staff.staff.auth.signOut({})
    // A cookie that names no session, and a booth key that is none: the service's 401s. (With no
    // credential at all, Prism itself answers 401: the document requires one.)
    const signedOut = await throughPrism(`${prismUrl}/staff/events`, { headers: { cookie: 'photobooth.session_token=signed-out' } })
    expect([signedOut.status, await signedOut.json()]).toEqual([401, { error: 'Staff sign-in required', code: 'unauthorized' }])
    const [wrongKey] = await safe(createClient({ baseUrl: prismUrl, boothKey: 'pbk_wrong', fetch: throughPrism }).booth.listEvents())
    expect(isDefinedError(wrongKey) && [wrongKey.status, wrongKey.message]).toEqual([401, 'Unauthorized'])

    const seen = statusesOf(expectAllValid())
    for (const expected of ['422', '409', '404', '400', '401'])
      expect(
        seen.some((line) => line.endsWith(` ${expected}`)),
        expected,
      ).toBe(true)
  })

  it("when the service refused a request of the flows, then the document's example of that status is one of its answers", async () => {
    const document = JSON.parse(await readFile(DOCUMENT, 'utf8')) as ExampleDocument
    const routes = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
      parameters: (path.match(/\{/g) ?? []).length,
    }))
    // The fewest parameters first: /gallery/events/x is the event page, not a gallery's zip.
    routes.sort((a, b) => a.parameters - b.parameters)
    const said = new Map<string, Set<string>>()
    for (const { call, status, refusal } of answers) {
      if (refusal === undefined) continue
      const [method, pathname] = call.split(' ') as [string, string]
      const { path } = routes.find((route) => route.pattern.test(pathname))!
      const key = `${method} ${path} ${status}`
      const text = refusal.startsWith('{') ? String((JSON.parse(refusal) as { error?: unknown }).error) : refusal
      said.set(key, (said.get(key) ?? new Set()).add(text))
    }
    const unlike: string[] = []
    for (const [key, texts] of said) {
      const [method, path, status] = key.split(' ') as [string, string, string]
      const content = document.paths[path]![method.toLowerCase()]!.responses[status]!.content ?? {}
      const example = Object.values(content)[0]?.example
      const text = typeof example === 'string' ? example : (example as { error?: string } | undefined)?.error
      if (!text || !texts.has(text)) unlike.push(`${key}: documented ${JSON.stringify(example)}, answered ${JSON.stringify([...texts])}`)
    }
    expect(said.size).toBeGreaterThanOrEqual(9)
    expect(unlike).toEqual([])
  })

  it('when a request or an answer is outside the document, then Prism says so (the checks are on)', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const refused = await fetch(`${prismUrl}/sets/${sets[0]!.id}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ guests: [] }),
    })
    expect(refused.status).toBe(422)
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)

    // A document whose kiosk context requires a field the service never sends: the real answer is a violation.
    const document = JSON.parse(await readFile(DOCUMENT, 'utf8')) as OpenApiDocument
    const schema = document.paths['/events/{eventSlug}/sets/{setSlug}']!.get!.responses['200']!.content!['application/json']!.schema!
    schema.required = [...(schema.required ?? []), 'neverSent']
    const folder = await mkdtemp(join(tmpdir(), 'prism-'))
    const port = await freePort()
    const strict = await startPrism(port, app.url, join(folder, 'openapi.json'), document)
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/events/${event.slug}/sets/${sets[0]!.slug}`)
      expect(answer.status).toBe(500)
      expect(JSON.stringify(await answer.json())).toContain('neverSent')
    } finally {
      await stopPrism(strict)
      await rm(folder, { recursive: true, force: true })
    }
  })
})
