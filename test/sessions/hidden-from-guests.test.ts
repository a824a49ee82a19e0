import { beforeAll, describe, expect, it } from 'vitest'

import { document, resolveSchema, type Schema } from '../fuzz/openapi.js'
import { createTestBoothKey, withTestServer } from '../support/harness.js'
import { makeLiveGallery, type LiveGallery } from '../support/gallery-fixture.js'
import { signedInStaff, staffFetch } from '../support/staff.js'

/** What only staff may see of a guest: contact details and the delivery of their messages. */
const STAFF_ONLY_FIELDS = [
  'email',
  'phone',
  'recipient',
  'providerMessageId',
  'lastError',
  'attempts',
  'messages',
  'customer',
  'customerId',
]

const app = withTestServer()
let gallery: LiveGallery
let eventSlug: string
let setSlug: string
let setId: string
const guests = [
  { name: 'Ada Lovelace', email: 'ada.hidden@example.org', phone: '(312) 555-0186' },
  { name: 'Grace Hopper', email: 'grace.hidden@example.org' },
]
beforeAll(async () => {
  gallery = await makeLiveGallery(app, { guests })
  const [row] = await app.orm.em.fork().execute<{ event_slug: string; set_slug: string; set_id: string }[]>(
    `select e.slug as event_slug, st.slug as set_slug, st.id as set_id
       from session s join event_set st on st.id = s.set_id join event e on e.id = st.event_id where s.id = ?`,
    [gallery.sessionId],
  )
  ;({ event_slug: eventSlug, set_slug: setSlug, set_id: setId } = row!)
  // A delivery outcome to hide: what the provider answered.
  await app.orm.em
    .fork()
    .execute(`update outbox_message set status = 'sent', provider_message_id = 'provider-id-123', sent_at = now() where session_id = ?`, [
      gallery.sessionId,
    ])
})

/** Every property name a schema can answer, through references, arrays and unions. */
function propertyNames(schema: Schema, seen = new Set<Schema>()): string[] {
  const resolved = resolveSchema(schema)
  if (seen.has(resolved)) return []
  seen.add(resolved)
  const own = Object.entries(resolved.properties ?? {}).flatMap(([name, child]) => [name, ...propertyNames(child, seen)])
  const nested = [resolved.items, ...(resolved.anyOf ?? []), ...((resolved as { oneOf?: Schema[] }).oneOf ?? [])].filter(
    (child): child is Schema => child !== undefined,
  )
  return [...own, ...nested.flatMap((child) => propertyNames(child, seen))]
}

describe('nothing staff-only is reachable from a public or booth route', () => {
  it('when the OpenAPI document is read, then no answer of a route outside /staff and sign-in carries a contact or delivery field', () => {
    const leaks: string[] = []
    for (const [path, methods] of Object.entries(document.paths)) {
      if (path.startsWith('/staff/') || path.startsWith('/api/auth/')) continue
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(
          operation.responses as Record<string, { content?: Record<string, { schema: Schema }> }>,
        )) {
          for (const { schema } of Object.values(response.content ?? {})) {
            const names = propertyNames(schema).filter((name) => STAFF_ONLY_FIELDS.includes(name))
            if (names.length > 0) leaks.push(`${method.toUpperCase()} ${path} ${status}: ${names.join(', ')}`)
          }
        }
      }
    }
    expect(leaks).toEqual([])
  })

  it('when every public and booth route is asked about the session, then no answer holds a guest’s email, phone or delivery state', async () => {
    const boothKey = await createTestBoothKey(app)
    const booth = { authorization: `Bearer ${boothKey}` }
    const answers = await Promise.all(
      [
        [`/events/${eventSlug}/sets/${setSlug}`],
        [`/gallery/events/${eventSlug}`],
        [`/gallery/${gallery.sessionId}`],
        [`/booth/events`, booth],
        [`/booth/sets/${setId}/sessions`, booth],
        [`/openapi.json`],
      ].map(async ([path, headers]) => {
        const response = await fetch(`${app.url}${path as string}`, { headers: headers as Record<string, string> | undefined })
        return { path, status: response.status, text: await response.text() }
      }),
    )
    expect(answers.filter(({ path }) => path !== '/openapi.json').map(({ status }) => status)).toEqual([200, 200, 200, 200, 200])
    for (const { path, text } of answers) {
      for (const secret of [
        'ada.hidden@example.org',
        'grace.hidden@example.org',
        '+13125550186',
        '555-0186',
        'provider-id-123',
        'hidden@',
      ]) {
        expect(text.includes(secret), `${path as string} shows ${secret}`).toBe(false)
      }
    }
  })

  it('when staff read the same session, then they see the contacts and the delivery state', async () => {
    const staff = await signedInStaff(app)
    const text = await (await staffFetch(app, staff, `/staff/sessions/${gallery.sessionId}`)).text()
    for (const shown of ['ada.hidden@example.org', '+13125550186', 'provider-id-123']) expect(text).toContain(shown)
  })
})
