/**
 * The staff console by role (issue 34), in Chromium against the real service: the console's table
 * of roles is the contract's; an owner's screens (numbers, settings, team, opt-outs, audit trail,
 * account); a manager invited with a password changes it first and is shown no people, team,
 * retention or audit controls; a staff member, once the team requires a second factor, sets one up
 * on the console (its QR code and backup codes) and is shown no booth keys or guest list. The API
 * still refuses each hidden control when the same browser session calls it directly.
 */
import { resolve } from 'node:path'

import { contract } from '@photobooth/sdk/contract'
import { createKioskClient } from '@photobooth/sdk/kiosk'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LEAST_ROLE } from '../../apps/console/src/roles.js'
import { launchChromium, type Guest } from '../support/browser.js'
import { consoleProblems, look, menuOf, openConsole, openMenu, SCREENSHOTS, signInAt } from '../support/console.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { scratchDatabases } from '../support/databases.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { sessionCookie, signedInStaff, signIn, staffFetch, type StaffSession } from '../support/staff.js'
import { totpCode } from '../support/totp.js'

let app: TestServer
let owner: StaffSession
let browser: Browser
const opened: Guest[] = []
let event: { id: string; name: string; sets: { id: string }[] }

// A database of its own: requiring a second factor (a test below) holds for every member of the
// database, and the browser suite's other files share theirs.
const databases = scratchDatabases('console_roles')

beforeAll(async () => {
  app = await startTestServer({ databaseUrl: await databases.create() })
  owner = await signedInStaff(app, 'Olivia Owner', 'owner')
  const created = await staffFetch(app, owner, '/staff/events', {
    method: 'POST',
    body: { slug: 'autumn-ball', name: 'Autumn Ball', startAt: Date.now() - 3_600_000, isPrivate: false },
  })
  event = await created.json()
  await staffFetch(app, owner, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'photo-wall', name: 'Photo Wall' } })
  event = await (await staffFetch(app, owner, `/staff/events/${event.id}`)).json()
  // A gallery guests opened and shared, and a group still being photographed.
  const gallery = await makeLiveGallery(app, { setId: event.sets[0]!.id, guests: [{ name: 'Ada Lovelace', email: 'ada@example.org' }] })
  for (const kind of ['view', 'view', 'view', 'share'])
    await fetch(`${app.url}/track`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ kind, sessionId: gallery.sessionId, ...(kind === 'share' ? { channel: 'copy' } : {}) }),
    })
  await createKioskClient({ baseUrl: app.url }).kiosk.registerGuests({
    params: { setId: event.sets[0]!.id },
    body: { guests: [{ name: 'Grace Hopper', phone: '(415) 555-2671' }] },
  })
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  for (const staff of opened) expect(consoleProblems(staff)).toEqual([])
  await Promise.all(opened.map((staff) => staff.context.close()))
  await browser?.close()
  await app?.stop()
  await databases.dropAll()
})

async function consoleFor(): Promise<Page> {
  const staff = await openConsole(browser, app)
  opened.push(staff)
  await staff.page.getByRole('heading', { name: 'Sign in' }).waitFor()
  return staff.page
}

/** The same browser session, calling the API itself as a page script could: the cookie and the service's origin. */
async function sameSession(page: Page) {
  const cookie = (await page.context().cookies()).map(({ name, value }) => `${name}=${value}`).join('; ')
  return (path: string, init: { method?: string; body?: unknown } = {}) =>
    staffFetch(app, { headers: { cookie, origin: app.config.publicUrl } } as StaffSession, path, init)
}

/** Invites a member with a password of the owner's choosing, as an owner does on the API. */
async function invite(role: 'manager' | 'staff', name: string) {
  const email = `${role}-${Date.now()}@example.org`
  const password = 'bright copper kettle whiskers'
  const response = await staffFetch(app, owner, '/staff/members', { method: 'POST', body: { email, name, password, role } })
  expect(response.status).toBe(201)
  return { email, password }
}

async function refusal(response: Response) {
  return [response.status, ((await response.json()) as { code: string }).code]
}

describe('the console by role', () => {
  it('when the console decides what to show, then its table of roles is the contract’s, route by route', () => {
    const staffRoutes = contract.staff as unknown as Record<string, Record<string, { '~orpc': { meta: { role?: string } } }>>
    for (const [route, role] of Object.entries(LEAST_ROLE)) {
      const [area, name] = route.split('.') as [string, string]
      expect(staffRoutes[area]?.[name]?.['~orpc'].meta.role, route).toBe(role)
    }
  })

  it('when an owner works, by keyboard too, then the numbers, settings, team, opt-outs, audit trail and account are theirs', async () => {
    const page = await consoleFor()
    // Signed in by keyboard alone: the fields in order, Enter sends.
    await page.keyboard.press('Tab')
    await page.keyboard.type(owner.email)
    await page.keyboard.press('Tab')
    await page.keyboard.type(owner.password)
    await page.keyboard.press('Enter')
    // The first Tab of a screen offers to skip the menu.
    await page.getByRole('link', { name: /Autumn Ball/ }).waitFor()
    await page.keyboard.press('Tab')
    await expect(page.evaluate<string>('document.activeElement.textContent')).resolves.toBe('Skip to the content')
    await look(page, 'events')
    await page.getByRole('link', { name: /Autumn Ball/ }).click()
    await page.locator('article.session').first().waitFor()
    await page.getByRole('link', { name: 'Numbers' }).click()
    await page.getByRole('img', { name: /per hour/ }).waitFor()
    await expect(page.locator('.tile').first().textContent()).resolves.toBe('3Gallery views')
    await expect(page.getByRole('link', { name: 'Download the guest list' }).getAttribute('href')).resolves.toBe(
      `/staff/events/${event.id}/guests.csv`,
    )
    await look(page, 'numbers')
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Keep guests’ data for (days after the start)').waitFor()
    await page.getByRole('button', { name: 'Delete the event' }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Delete Autumn Ball?' })
    await expect(dialog.textContent()).resolves.toMatch(/2 sessions, with 2 guests’ names, emails and phones.*3 photos/)
    // The dialog holds the focus; Escape closes it and gives the focus back to the button that opened it.
    await expect(page.evaluate<boolean>("document.querySelector('dialog[open]').contains(document.activeElement)")).resolves.toBe(true)
    await look(page, 'event-delete')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    await expect(page.evaluate<string>('document.activeElement.textContent')).resolves.toBe('Delete the event')
    expect((await staffFetch(app, owner, `/staff/events/${event.id}`)).status).toBe(200)
    await look(page, 'settings')

    await openMenu(page, 'Team')
    await page.getByRole('heading', { name: 'Members' }).waitFor()
    await page.getByRole('article', { name: /Olivia Owner/ }).waitFor()
    await look(page, 'team')
    await openMenu(page, 'Opt-outs')
    await page.getByLabel('Email address').fill('ada@example.org')
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByText('Not on the list: links to this address are sent.').waitFor()
    await look(page, 'opt-outs')
    await openMenu(page, 'Audit trail')
    await page.getByRole('cell', { name: 'createEvent' }).first().waitFor()
    await look(page, 'audit')
    await page.getByRole('link', { name: /Olivia Owner/ }).click()
    await page.getByRole('heading', { name: 'Set up a second factor' }).waitFor()
    await look(page, 'account')
  })

  it('when a call is slow, the service cannot be reached or the session ends, then the screen says so in words, tries again on demand, or asks to sign in; never blank', async () => {
    const page = await consoleFor()
    await signInAt(page, owner.email, owner.password)
    await page.getByRole('link', { name: /Autumn Ball/ }).waitFor()
    // The event's answer held back: the screen says what it waits for. Its numbers never come (the
    // connection refused, every try).
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(`**/staff/events/${event.id}`, async (route) => {
      await held
      await route.continue()
    })
    await page.route(`**/staff/events/${event.id}/stats`, (route) => route.abort('connectionrefused'))
    await page.getByRole('link', { name: /Autumn Ball/ }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Loading the event…' }).isVisible()).resolves.toBe(true)
    release()
    await page.getByRole('heading', { name: 'Autumn Ball', level: 1 }).waitFor()
    await page.unroute(`**/staff/events/${event.id}`)
    await page.locator('article.session').first().waitFor()
    await page.getByRole('link', { name: 'Numbers' }).click()
    const failure = page.getByRole('alert')
    await expect(failure.locator('strong').textContent()).resolves.toBe(
      'The service cannot be reached. Check the connection and try again.',
    )
    await look(page, 'numbers-unreachable')
    await page.unroute(`**/staff/events/${event.id}/stats`)
    await failure.getByRole('button', { name: 'Try again' }).click()
    await expect(page.locator('.tile').first().textContent()).resolves.toBe('3Gallery views')

    // Signed out elsewhere (the session ended): the live view's next refresh brings the sign-in back.
    await page.getByRole('link', { name: 'Live' }).click()
    await page.locator('article.session').first().waitFor()
    const cookie = (await page.context().cookies()).map(({ name, value }) => `${name}=${value}`).join('; ')
    const signedOut = await fetch(`${app.url}/api/auth/sign-out`, { method: 'POST', headers: { cookie, origin: app.config.publicUrl } })
    expect(signedOut.status).toBe(200)
    await page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 10_000 })
    // Chromium reports the refused loads itself: the test's doing, not the page's.
    const staff = opened.pop()!
    expect(consoleProblems(staff).filter((problem) => !problem.includes('net::ERR_CONNECTION_REFUSED'))).toEqual([])
    await staff.context.close()
  })

  it('when a manager invited with a password signs in, then they choose their own first, and see no people, team, retention or audit controls, which the API refuses them', async () => {
    const { email, password } = await invite('manager', 'Morgan Manager')
    const page = await consoleFor()
    await signInAt(page, email, password)
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor()
    await look(page, 'password-first')
    await page.getByLabel('The password you were given').fill(password)
    await page.getByLabel('New password', { exact: true }).fill('orchard violet canoe thunder')
    await page.getByLabel('New password again').fill('orchard violet canoe thunder')
    await page.getByRole('button', { name: 'Save the new password' }).click()
    await page.getByRole('link', { name: /Autumn Ball/ }).waitFor()

    expect(await menuOf(page)).toEqual(['Events', 'Booth keys', 'Opt-outs'])
    // On a phone, the menu is behind its button, and closes once a screen is chosen.
    await page.setViewportSize({ width: 390, height: 844 })
    const menu = page.getByRole('button', { name: 'Menu' })
    await expect(page.getByRole('link', { name: 'Booth keys' }).isVisible()).resolves.toBe(false)
    await menu.click()
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true')
    await page.screenshot({ path: resolve(SCREENSHOTS, 'console-menu-390.png'), caret: 'hide' })
    await page.getByRole('link', { name: 'Booth keys' }).click()
    await page.getByRole('heading', { name: 'Booth keys', level: 1 }).waitFor()
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false')
    await page.setViewportSize({ width: 1280, height: 800 })
    await openMenu(page, 'Events')
    await page.getByRole('link', { name: /Autumn Ball/ }).click()
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Privacy notice version').waitFor()
    await expect(page.getByLabel('Keep guests’ data for (days after the start)').count()).resolves.toBe(0)
    await expect(page.getByRole('button', { name: 'Delete the event' }).count()).resolves.toBe(0)
    // A manager's save changes what they changed, and never what only an owner may (retention).
    await page.getByLabel('Clear the screen after (seconds untouched)').fill('90')
    await page.getByLabel('Tagline').fill('See you next autumn!')
    await page.getByRole('button', { name: 'Save the changes' }).click()
    await page.getByText('Saved.').waitFor()
    expect(await (await staffFetch(app, owner, `/staff/events/${event.id}`)).json()).toMatchObject({
      kioskIdleSeconds: 90,
      branding: { tagline: 'See you next autumn!' },
      retentionDays: null,
    })
    // And renames a set.
    await page.getByRole('link', { name: 'Sets & kiosks' }).click()
    await page.getByRole('article', { name: 'Photo Wall' }).getByRole('button', { name: 'Rename' }).click()
    await page.getByLabel('Set name', { exact: true }).first().fill('Photo Wall (garden)')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('heading', { name: 'Photo Wall (garden)' }).waitFor()
    await page.getByRole('link', { name: 'Live' }).click()
    await page.locator('article.session').first().waitFor()
    await expect(page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0)
    await page.getByRole('link', { name: 'Numbers' }).click()
    await page.getByRole('link', { name: 'Download the guest list' }).waitFor()
    // A screen of the owners' typed in by hand goes back to the events.
    await page.goto('/console/team')
    await page.getByRole('heading', { name: 'Events' }).waitFor()

    const api = await sameSession(page)
    expect(await refusal(await api('/staff/people?email=ada%40example.org'))).toEqual([403, 'insufficient_role'])
    expect(await refusal(await api('/staff/members'))).toEqual([403, 'insufficient_role'])
    expect(await refusal(await api('/staff/audit'))).toEqual([403, 'insufficient_role'])
    expect(await refusal(await api(`/staff/events/${event.id}`, { method: 'PATCH', body: { retentionDays: 30 } }))).toEqual([
      403,
      'insufficient_role',
    ])
    expect(await refusal(await api(`/staff/events/${event.id}`, { method: 'DELETE' }))).toEqual([403, 'insufficient_role'])
  })

  it('when the team requires a second factor, then a staff member sets one up on the console, and sees no booth keys or guest list, which the API refuses them', async () => {
    // The owner's own second factor first, then the rule.
    const cookie = sessionCookie(await signIn(app, owner.email, owner.password))
    const auth = (path: string, body: unknown) =>
      fetch(`${app.url}/api/auth/two-factor/${path}`, {
        method: 'POST',
        headers: { cookie, origin: app.config.publicUrl, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const { totpURI } = (await (await auth('enable', { password: owner.password })).json()) as { totpURI: string }
    const verified = await auth('verify-totp', { code: totpCode(totpURI) })
    expect(verified.status).toBe(200)
    // Confirming renews the session: its new cookie.
    const renewed = verified.headers.getSetCookie().some((line) => /session_token=[^;]/.test(line)) ? sessionCookie(verified) : cookie
    const required = await staffFetch(app, { ...owner, headers: { cookie: renewed, origin: app.config.publicUrl } }, '/staff/team', {
      method: 'PATCH',
      body: { requireTwoFactor: true },
    })
    expect(required.status).toBe(200)

    const { email, password } = await invite('staff', 'Sam Staff')
    const page = await consoleFor()
    await signInAt(page, email, password)
    await page.getByLabel('The password you were given').fill(password)
    await page.getByLabel('New password', { exact: true }).fill('marble lantern quietly sprouts')
    await page.getByLabel('New password again').fill('marble lantern quietly sprouts')
    await page.getByRole('button', { name: 'Save the new password' }).click()

    await page.getByText('The team requires a second factor of every member.').waitFor()
    await page.getByLabel('Your password').fill('marble lantern quietly sprouts')
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).locator('path').waitFor()
    await expect(page.getByRole('list', { name: 'Backup codes' }).getByRole('listitem').count()).resolves.toBe(10)
    await look(page, 'two-factor-setup')
    const secret = (await page.locator('code.secret').textContent())!
    const uri = `otpauth://totp/x?secret=${secret}`
    await page.getByLabel('The code the app shows now').fill(totpCode(uri))
    await page.getByRole('button', { name: 'Turn on the second factor' }).click()
    await page.getByRole('link', { name: /Autumn Ball/ }).waitFor()

    expect(await menuOf(page)).toEqual(['Events', 'Opt-outs'])
    await page.getByRole('link', { name: /Autumn Ball/ }).click()
    const grace = page.locator('article.session').filter({ hasText: 'Grace Hopper' })
    await grace.getByRole('button', { name: 'Cancel' }).waitFor()
    await expect(page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0)
    await expect(page.getByRole('link', { name: 'Settings' }).count()).resolves.toBe(0)
    // The staff role sees contacts masked; one guest's in full on demand, which the audit trail records.
    await expect(grace.locator('.contact').textContent()).resolves.not.toContain('555')
    await look(page, 'live-staff')
    await grace.getByRole('button', { name: 'Show Grace Hopper’s contact in full' }).click()
    await grace.getByText('+14155552671').waitFor()
    const shown = await staffFetch(
      app,
      { ...owner, headers: { cookie: renewed, origin: app.config.publicUrl } },
      '/staff/audit?action=getGuestContact',
    )
    expect((await shown.json()).events).toEqual([expect.objectContaining({ role: 'staff', status: 200 })])
    await page.getByRole('link', { name: 'Numbers' }).click()
    await page.getByRole('img', { name: /per hour/ }).waitFor()
    await expect(page.getByRole('link', { name: 'Download the guest list' }).count()).resolves.toBe(0)
    await page.getByRole('link', { name: 'Sets & kiosks' }).click()
    await page.getByRole('article', { name: 'Photo Wall (garden)' }).waitFor()
    await expect(page.getByRole('button', { name: 'Rename' }).count()).resolves.toBe(0)
    await expect(page.getByLabel('Set name').count()).resolves.toBe(0)

    const api = await sameSession(page)
    expect(await refusal(await api('/staff/booth-keys'))).toEqual([403, 'insufficient_role'])
    expect(await refusal(await api('/staff/booth-keys', { method: 'POST', body: { name: 'Sneaky', eventIds: [event.id] } }))).toEqual([
      403,
      'insufficient_role',
    ])
    expect(await refusal(await api(`/staff/events/${event.id}/guests.csv`))).toEqual([403, 'insufficient_role'])

    // The staff member's own cancel works from the console.
    await page.getByRole('link', { name: 'Live' }).click()
    await grace.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('dialog', { name: 'Cancel Grace Hopper?' }).getByRole('button', { name: 'Cancel the session' }).click()
    await grace.getByText('Cancelled').waitFor()
  })
})
