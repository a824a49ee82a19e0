/**
 * Guests' contact details by role (issue 35, item 1): the staff role sees them masked in session
 * lists and details, and one guest's in full on request, audited; managers and owners see them in
 * full, each read audited with how many guests' it showed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { registerGuests, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'

let app: TestServer
beforeAll(async () => {
  app = await startTestServer()
})
afterAll(() => app?.stop())

const suffix = () => Math.random().toString(36).slice(2, 8)

async function eventWithGuests() {
  const { event, sets } = await seedEvent(app.orm)
  const ada = `ada.${suffix()}@example.org`
  const sessionId = await registerGuests(app, sets[0]!.id, [
    { name: 'Ada Lovelace', email: ada, phone: '(415) 555-2671' },
    { name: 'Grace Hopper', email: `grace.${suffix()}@example.org` },
  ])
  return { eventId: event.id, sessionId, ada }
}

type AuditRow = { action: string; targets: Record<string, string>; member_id: string }
const auditOf = (member: StaffSession) =>
  app.orm.em
    .fork()
    .execute<AuditRow[]>('select action, targets, member_id from audit_event where member_id = ? order by at', [member.memberId])

describe("guests' contact details by role", () => {
  it('when a member of the staff role lists or opens sessions, then emails and phones are masked and nothing is recorded; showing one guest gives it in full, recorded', async () => {
    const { eventId, sessionId, ada } = await eventWithGuests()
    const staff = await signedInStaff(app, 'Sam Staff', 'staff')
    const list = await (await staffFetch(app, staff, `/staff/events/${eventId}/sessions`)).json()
    const one = await (await staffFetch(app, staff, `/staff/sessions/${sessionId}`)).json()
    for (const session of [list.sessions[0], one]) {
      expect(session.guests.map((guest: Record<string, unknown>) => [guest.email, guest.phone, guest.contactMasked])).toEqual([
        [`a…@example.org`, '+…71', true],
        [`g…@example.org`, null, true],
      ])
    }
    const everything = JSON.stringify([list, one])
    expect(everything).not.toContain(ada)
    expect(everything).not.toContain('4155552671')

    const shown = await staffFetch(app, staff, `/staff/guests/${one.guests[0].id}/contact`)
    expect([shown.status, await shown.json()]).toEqual([200, { email: ada, phone: '+14155552671' }])
    const trail = await until(
      () => auditOf(staff),
      (rows) => rows.length >= 1,
    )
    expect(trail).toEqual([{ action: 'getGuestContact', targets: { guestId: one.guests[0].id, guests: '1' }, member_id: staff.memberId }])
    expect((await staffFetch(app, staff, '/staff/guests/no-such-guest/contact')).status).toBe(404)
  })

  it('when a manager lists sessions, then the contacts are in full and the read is recorded once with how many guests it showed, never what', async () => {
    const { eventId, ada } = await eventWithGuests()
    const manager = await signedInStaff(app, 'Mia Manager', 'manager')
    const list = await (await staffFetch(app, manager, `/staff/events/${eventId}/sessions`)).json()
    expect(list.sessions[0].guests[0]).toMatchObject({ email: ada, phone: '+14155552671' })
    expect(list.sessions[0].guests[0].contactMasked).toBeUndefined()
    const trail = await until(
      () => auditOf(manager),
      (rows) => rows.length >= 1,
    )
    expect(trail).toEqual([{ action: 'listStaffSessions', targets: { eventId, guests: '2' }, member_id: manager.memberId }])
    expect(JSON.stringify(trail)).not.toContain(ada)
  })
})
