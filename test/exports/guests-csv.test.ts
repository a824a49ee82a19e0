import { randomBytes } from 'node:crypto'

import { beforeAll, describe, expect, it } from 'vitest'

import { seedEvent, seedSession, withTestServer, registerGuests } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

/** The service's clock: each registration happens when the test says. */
let clock = new Date()
const app = withTestServer({}, { now: () => clock })
let staff: StaffSession
beforeAll(async () => {
  staff = await signedInStaff(app)
})

const HEADER =
  'Name,Email,Phone,Session label,Gallery link,Time,Marketing opt-in,Agreed to listing,Privacy notice version,Email delivery,SMS delivery'
const exportOf = (eventId: string) => staffFetch(app, staff, `/staff/events/${eventId}/guests.csv`)
const email = (name: string) => `${name}.${randomBytes(4).toString('hex')}@example.org`

async function register(setId: string, guests: { name: string; email?: string; phone?: string }[], at: string): Promise<string> {
  clock = new Date(at)
  return registerGuests(app, setId, guests)
}

describe('GET /staff/events/:eventId/guests.csv', () => {
  it('when an event has guests, then the CSV is exact: BOM, header, CRLF, RFC 4180 quoting, formulas neutralised, cancelled sessions left out', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const [zoe, grace, ann] = [email('zoe'), email('grace'), `-${email('ann')}`]
    const first = await register(
      setId,
      [
        { name: 'Zoë "Z" O\'Brien, Jr', email: zoe },
        { name: '=cmd', phone: '(415) 555-2671' },
        { name: 'Grace', email: grace },
      ],
      '2026-06-01T18:00:00.000Z',
    )
    const cancelled = await register(setId, [{ name: 'Carl', email: email('carl') }], '2026-06-01T18:05:00.000Z')
    expect((await staffFetch(app, staff, `/staff/sessions/${cancelled}/cancel`, { method: 'POST' })).status).toBe(200)
    const last = await register(setId, [{ name: '@Ann Lee', email: ann }], '2026-06-01T18:10:00.250Z')
    const elsewhere = await seedEvent(app.orm)
    await register(elsewhere.sets[0]!.id, [{ name: 'Other', email: email('other') }], '2026-06-01T17:00:00.000Z')

    const response = await exportOf(event.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${event.slug}-guests.csv"`)
    expect(response.headers.get('cache-control')).toBe('private, no-store')
    const link = (sessionId: string) => `${app.config.galleryUrl}/${sessionId}`
    const expected =
      `\uFEFF${HEADER}\r\n` +
      // Consent as registered (no opt-in, listed, no notice) and delivery not queued yet: the sessions are active.
      `"Zoë ""Z"" O'Brien, Jr",${zoe},,"Zoë, =cmd & Grace",${link(first)},2026-06-01T18:00:00.000Z,no,not asked,,,\r\n` +
      `'=cmd,,'+14155552671,"Zoë, =cmd & Grace",${link(first)},2026-06-01T18:00:00.000Z,no,not asked,,,\r\n` +
      `Grace,${grace},,"Zoë, =cmd & Grace",${link(first)},2026-06-01T18:00:00.000Z,no,not asked,,,\r\n` +
      `'@Ann Lee,'${ann},,'@Ann Lee,${link(last)},2026-06-01T18:10:00.250Z,no,not asked,,,\r\n`
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(expected, 'utf8'))
  })

  it('when a name starts with a fullwidth, small or superscript formula sign, then it is neutralised as the ASCII sign is', async () => {
    const { event, sets } = await seedEvent(app.orm)
    // One session a guest: each line's label is that guest's name alone.
    const names = ['＝HYPERLINK("http://evil.example","x")', '＋cmd', '－2+3', '＠SUM(A1)', '﹦1+1', '﹫x', '⁼1', 'Ｚoë']
    for (const [i, name] of names.entries())
      await register(sets[0]!.id, [{ name, email: email(`wide${i}`) }], `2026-06-02T18:0${i}:00.000Z`)
    const lines = (await (await exportOf(event.id)).text()).split('\r\n').slice(1, -1)
    expect(lines.map((line) => line.slice(0, line.indexOf(',' + 'wide')))).toEqual([
      `"'＝HYPERLINK(""http://evil.example"",""x"")"`,
      `'＋cmd`,
      `'－2+3`,
      `'＠SUM(A1)`,
      `'﹦1+1`,
      `'﹫x`,
      `'⁼1`,
      // A fullwidth letter is no sign: left as it is.
      `Ｚoë`,
    ])
  })

  it('when an event has 1,200 guests, then every one is streamed, oldest session first, read 500 at a time', async () => {
    const { event, sets } = await seedEvent(app.orm)
    const setId = sets[0]!.id
    const start = Date.parse('2026-06-01T18:00:00.000Z')
    for (let i = 0; i < 100; i++)
      await seedSession(app.orm, setId, { status: i % 2 ? 'active' : 'completed', photos: 0, createdAt: new Date(start + i * 1000) })
    // Twelve guests to each session, each with a customer of their own.
    const em = app.orm.em.fork()
    const guests = `from session s cross join generate_series(1, 12) as p (position) where s.set_id = ?`
    await em.execute(
      `insert into customer (id, email, first_name, last_name) select 'c' || s.id || p.position, 'g' || p.position || '.' || s.id || '@example.org', 'Guest', p.position::text ${guests}`,
      [setId],
    )
    await em.execute(
      `insert into session_guest (id, session_id, position, first_name, last_name, email, customer_id)
       select 'g' || s.id || p.position, s.id, p.position, 'Guest', p.position::text, 'g' || p.position || '.' || s.id || '@example.org', 'c' || s.id || p.position ${guests}`,
      [setId],
    )
    const expected = await em.execute<{ email: string }[]>(
      'select g.email from session s join session_guest g on g.session_id = s.id where s.set_id = ? order by s.created_at, g.position',
      [setId],
    )
    expect(expected).toHaveLength(1200)

    app.queries.length = 0
    const response = await exportOf(event.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-length')).toBeNull()
    // Not response.text(): its decoding drops the byte order mark.
    const lines = Buffer.from(await response.arrayBuffer())
      .toString('utf8')
      .split('\r\n')
    expect(lines.shift()).toBe(`\uFEFF${HEADER}`)
    expect(lines.pop()).toBe('')
    expect(lines.map((line) => line.split(',')[1])).toEqual(expected.map((row) => row.email))
    expect(app.queries.filter((sql) => /join session_guest g on g.session_id = s.id/.test(sql))).toHaveLength(3)
  })

  it('when the event is unknown, then 404 JSON "no such event"', async () => {
    const response = await exportOf('AAAAAAAAAAAAAAAAAAAAAA')
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({ error: 'no such event', code: 'no_such_event' })
  })

  it('when the event id holds a control character or is over 200 characters, then 400 in the validator shape, as on every other route', async () => {
    for (const id of ['%00', 'a'.repeat(201)]) {
      const response = await exportOf(id)
      expect(response.status, id).toBe(400)
      const body = await response.json()
      expect(body).toMatchObject({ success: false, error: { name: 'ZodError' } })
      expect(JSON.parse(body.error.message).map((issue: { path: unknown }) => issue.path)).toEqual([['eventId']])
    }
  })
})
