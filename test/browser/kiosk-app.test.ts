/**
 * The kiosk app (issue 32) on a venue's tablet, in Chromium at 1024×768 with touch: opened at the
 * `kioskUrl` staff are given, a group registers and staff see their session and each guest's
 * consent; every refusal shows at its field; nothing of a group stays after its confirmation or an
 * idle timeout; it works by keyboard alone; axe finds nothing; screenshots at both orientations.
 */
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'

import axe from 'axe-core'
import sharp from 'sharp'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { closeGuests, launchChromium, type Guest } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import {
  card,
  createKioskEvent,
  descriptionOf,
  openKiosk,
  registerGroup,
  TABLET,
  TABLET_PORTRAIT,
  typeGroup,
  whatThePageKeeps,
  type GroupGuest,
  type PageElement,
  type KioskEvent,
} from '../support/kiosk-app.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

const ROOT = resolve(import.meta.dirname, '../..')
const SCREENSHOTS = resolve(ROOT, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots')

const NOTICE = {
  version: '2026-06',
  url: 'https://flashbulb.example.com/privacy',
  text: 'Flashbulb Booths keeps your name and contact to send you your photos, and deletes them 90 days after the event.',
}
const GROUP: GroupGuest[] = [
  { name: 'Ada Lovelace', email: 'ada.kiosk@example.org' },
  { name: 'Grace Hopper', phone: '4155552671', marketingOptIn: true },
  { name: 'Katherine Johnson', email: 'katherine.kiosk@example.org', phone: '2025550142', listed: false },
]
/** What of the group must not outlive it: names, addresses, numbers as typed and as shown. */
const GROUP_TRACES = ['Ada', 'Lovelace', 'Grace', 'Hopper', 'Katherine', 'ada.kiosk', 'katherine.kiosk', '555', '2671', '0142']

let app: TestServer
let staff: StaffSession
let browser: Browser
let kiosk: KioskEvent
const opened: Guest[] = []

/** A logo as staff upload one: a PNG of a camera in the business's colour. */
const logo = async () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="360" height="96"><rect width="360" height="96" rx="20" fill="#b4235a"/><rect x="24" y="26" width="64" height="46" rx="8" fill="#fff"/><circle cx="56" cy="49" r="14" fill="#b4235a"/><rect x="110" y="38" width="220" height="20" rx="10" fill="#fff"/></svg>`
  return `data:image/png;base64,${(await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64')}`
}

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true })
  app = await startTestServer()
  staff = await signedInStaff(app)
  kiosk = await createKioskEvent(app, staff, {
    // Public: its page lists the guests who leave the box as it is.
    isPrivate: false,
    privacyNotice: NOTICE,
    branding: { businessName: 'Flashbulb Booths', accentColor: '#b4235a', tagline: 'Thanks for celebrating with us!', logo: await logo() },
  })
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await closeGuests(opened)
  await browser?.close()
  await app?.stop()
})

async function tablet(options = TABLET, event = kiosk): Promise<Page> {
  const guest = await openKiosk(browser, app, event, options)
  opened.push(guest)
  return guest.page
}

/** The event's guests as staff export them (the CSV of the staff API), by name. */
async function exportedGuests(eventId: string) {
  const response = await staffFetch(app, staff, `/staff/events/${eventId}/guests.csv`)
  expect(response.status).toBe(200)
  const [header, ...rows] = (await response.text())
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n')
    .map((line) => [...line.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].map(([, field]) => field!.replace(/^"|"$/g, '').replaceAll('""', '"')))
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])))
}

describe('the kiosk app on a tablet', () => {
  it('when a group of three registers, then staff see their session and the consent each gave, under the notice the kiosk showed', async () => {
    // The address staff are given opens the kiosk itself.
    expect(kiosk.set.kioskUrl).toBe(`${app.url}/kiosk/${kiosk.event.slug}/photo-wall`)
    const page = await tablet()
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Summer Gala')
    await page.getByText('Thanks for celebrating with us!').waitFor()
    await expect(
      page.getByRole('img', { name: 'Flashbulb Booths' }).evaluate((img: PageElement) => img.naturalWidth),
    ).resolves.toBeGreaterThan(0)

    await typeGroup(page, GROUP)
    // The phone is shown as typed, in the event's country's format.
    await expect(card(page, 1).getByLabel('Mobile phone').inputValue()).resolves.toBe('(415) 555-2671')
    // The notice opens inside the kiosk: its text, and its link as a code to scan, never as a link.
    await page.getByRole('button', { name: 'Privacy notice' }).tap()
    const dialog = page.getByRole('dialog', { name: 'Privacy notice' })
    await dialog.getByText(NOTICE.text).waitFor()
    await dialog.getByRole('img', { name: 'Scan to read it on your phone' }).locator('path').waitFor()
    await expect(page.locator('a').count()).resolves.toBe(0)
    await dialog.getByRole('button', { name: 'Close' }).tap()
    await dialog.waitFor({ state: 'detached' })

    await page.getByRole('button', { name: 'Send me my photos' }).tap()
    await page.getByRole('heading', { name: 'Thank you, Ada, Grace, and Katherine!' }).waitFor()
    await expect(page.locator('.contacts li').allTextContents()).resolves.toEqual([
      'ada.kiosk@example.org',
      '(415) 555-2671',
      'katherine.kiosk@example.org',
    ])

    const { sessions } = await (await staffFetch(app, staff, `/staff/events/${kiosk.event.id}/sessions`)).json()
    expect(sessions).toHaveLength(1)
    expect(sessions[0]).toMatchObject({ status: 'active', label: expect.stringContaining('Ada') })
    expect(
      sessions[0].guests.map((guest: { name: string; email: string | null; phone: string | null }) => [
        guest.name,
        guest.email,
        guest.phone,
      ]),
    ).toEqual([
      ['Ada Lovelace', 'ada.kiosk@example.org', null],
      ['Grace Hopper', null, '+14155552671'],
      ['Katherine Johnson', 'katherine.kiosk@example.org', '+12025550142'],
    ])
    expect(
      (await exportedGuests(kiosk.event.id)).map((row) => [
        row.Name,
        row['Marketing opt-in'],
        row['Agreed to listing'],
        row['Privacy notice version'],
      ]),
    ).toEqual([
      ['Ada Lovelace', 'no', 'yes', '2026-06'],
      ['Grace Hopper', 'yes', 'yes', '2026-06'],
      ['Katherine Johnson', 'no', 'no', '2026-06'],
    ])
  })

  it('when the service or the kiosk refuses, then each message is at its field, in the guest’s language', async () => {
    const event = await createKioskEvent(app, staff, { privacyNotice: NOTICE })
    const guest = await openKiosk(browser, app, event)
    opened.push(guest)
    const { page } = guest
    await typeGroup(page, [
      { name: 'Ada Lovelace', phone: '555' },
      { name: 'Grace Hopper' },
      { name: 'Katherine Johnson', email: 'katherine@example' },
    ])
    await page.getByRole('button', { name: 'Send me my photos' }).tap()
    await expect(page.getByRole('alert').first().textContent()).resolves.toBe('Please check the 3 fields marked below.')
    const phone = card(page, 0).getByLabel('Mobile phone')
    await expect(descriptionOf(phone)).resolves.toBe(
      "This doesn't look like a phone number: (555) An email or a mobile phone, for your photos",
    )
    await expect(phone.getAttribute('aria-invalid')).resolves.toBe('true')
    // The first field to fix has the focus.
    await expect(phone.evaluate((field: PageElement) => field === field.ownerDocument.activeElement)).resolves.toBe(true)
    for (const field of ['Email', 'Mobile phone'])
      await expect(descriptionOf(card(page, 1).getByLabel(field))).resolves.toBe('Grace Hopper needs an email or a phone number')
    await expect(descriptionOf(card(page, 2).getByLabel('Email'))).resolves.toBe(
      'Invalid email address An email or a mobile phone, for your photos',
    )
    await expect(descriptionOf(card(page, 0).getByLabel('Email'))).resolves.toBe('An email or a mobile phone, for your photos')

    // The same messages from the one table, in Spanish.
    await page.getByRole('button', { name: 'Español' }).tap()
    await expect(descriptionOf(card(page, 0).getByLabel('Móvil'))).resolves.toBe(
      'Esto no parece un número de teléfono: (555) Un correo o un móvil, para tus fotos',
    )
    await expect(descriptionOf(card(page, 1).getByLabel('Correo electrónico'))).resolves.toBe(
      'Grace Hopper necesita un correo o un teléfono',
    )
    await page.getByRole('button', { name: 'English' }).tap()
    await page.screenshot({ path: resolve(SCREENSHOTS, 'kiosk-errors-1024x768.png'), caret: 'hide' })

    // Fixed, the message goes as the guest types.
    await phone.fill('')
    await phone.pressSequentially('4155552671')
    await expect(descriptionOf(phone)).resolves.toBe('An email or a mobile phone, for your photos')
    await card(page, 1).getByLabel('Email').fill('grace@example.org')
    await card(page, 2).getByLabel('Email').fill('katherine@example.org')

    // The set is deleted while the group types: the service's 404 is shown for the whole kiosk.
    expect((await staffFetch(app, staff, `/staff/sets/${event.set.id}`, { method: 'DELETE' })).status).toBe(200)
    await page.getByRole('button', { name: 'Send me my photos' }).tap()
    await page.getByRole('alert').filter({ hasText: 'This kiosk’s set no longer exists. Please ask a member of staff.' }).waitFor()
    // Chromium reports the 404 the registration was answered as a console error: that refusal is this test's.
    expect(guest.problems.splice(0)).toEqual([expect.stringContaining(`404 (Not Found) (${app.url}/sets/${event.set.id}/sessions)`)])
    await expect(page.getByRole('button', { name: 'Send me my photos' }).isEnabled()).resolves.toBe(true)
  })

  it('when a group is confirmed, or leaves the kiosk untouched, then nothing of it is left in the page, its fields or its history', async () => {
    const page = await tablet()
    // The entries the tablet's browser had before the kiosk: the kiosk adds none.
    const historyLength = await page.evaluate<number>('history.length')
    await registerGroup(page, GROUP)
    await page.getByRole('button', { name: 'Next group' }).tap()
    await page.getByRole('button', { name: 'Start' }).waitFor()
    const afterConfirmation = await whatThePageKeeps(page)
    for (const trace of GROUP_TRACES) expect(afterConfirmation).not.toContain(trace)
    expect(JSON.parse(afterConfirmation)).toMatchObject({ historyState: null, historyLength })
    // The next group's form starts empty, with fields named anew and autofill off.
    await page.getByRole('button', { name: 'Start' }).tap()
    const fields = await page
      .locator('.guest input:not([type=checkbox])')
      .evaluateAll((inputs: PageElement[]) =>
        inputs.map((input) => ({ value: input.value, autocomplete: input.autocomplete, name: input.name })),
      )
    expect(fields.map(({ value, autocomplete }) => ({ value, autocomplete }))).toEqual(Array(3).fill({ value: '', autocomplete: 'off' }))
    await page.getByRole('button', { name: 'Start over' }).tap()

    // Idle: the event's time (60 s by default) passes with a group's details typed in and not sent.
    await page.clock.install()
    await typeGroup(page, GROUP)
    await page.clock.fastForward(59_000)
    await expect(card(page, 0).getByLabel('Name').inputValue()).resolves.toBe('Ada Lovelace')
    await page.clock.fastForward(2_000)
    await page.getByRole('button', { name: 'Start' }).waitFor()
    const afterIdle = await whatThePageKeeps(page)
    for (const trace of GROUP_TRACES) expect(afterIdle).not.toContain(trace)
    expect(JSON.parse(afterIdle)).toMatchObject({ historyState: null, historyLength })
  })

  it('when the event sets its language, idle time and listing rule, then the kiosk starts in that language with that default and clears after that time; the confirmation clears itself', async () => {
    const event = await createKioskEvent(app, staff, { language: 'it', kioskIdleSeconds: 20, listGuestsByDefault: false })
    const guest = await openKiosk(browser, app, event, TABLET, 'Inizia')
    opened.push(guest)
    const { page } = guest
    await expect(page.evaluate('document.documentElement.lang')).resolves.toBe('it')
    await page.clock.install()
    await page.getByRole('button', { name: 'Inizia' }).tap()
    // Consent is never assumed: no marketing, and listing as the event's rule says (here: not listed).
    for (const choice of [/novità e offerte/, /pagina dell’evento/])
      await expect(card(page, 0).getByRole('checkbox', { name: choice }).isChecked()).resolves.toBe(false)
    await card(page, 0).getByLabel('Nome').fill('Giulia Rossi')
    await page.clock.fastForward(21_000)
    await page.getByRole('button', { name: 'Inizia' }).waitFor()
    await expect(page.getByLabel('Nome').count()).resolves.toBe(0)

    await page.getByRole('button', { name: 'Inizia' }).tap()
    await card(page, 0).getByLabel('Nome').fill('Giulia Rossi')
    await card(page, 0).getByLabel('Email').fill('giulia@example.org')
    await page.getByRole('button', { name: 'Inviami le foto' }).tap()
    await page.getByRole('heading', { name: 'Grazie, Giulia!' }).waitFor()
    await page.clock.fastForward(13_000)
    await page.getByRole('button', { name: 'Inizia' }).waitFor()
    expect(await whatThePageKeeps(page)).not.toContain('Giulia')
  })

  it('when used by keyboard alone, then a guest registers: Tab to each control, Enter to send', async () => {
    const page = await tablet()
    await page.keyboard.press('Tab')
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('English')
    // Through the language switch to Start.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    // The form opens on the first name, focused once it has rendered (after the key, not with it:
    // read at once, a busy machine found the focus still on nothing).
    await page.locator('input[id$="guests-0-name"]:focus').waitFor()
    await page.keyboard.type('Mary Jackson')
    await page.keyboard.press('Tab')
    await page.keyboard.type('mary.keyboard@example.org')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Thank you, Mary!' }).waitFor()
    await page.locator('h1:focus', { hasText: 'Thank you, Mary!' }).waitFor()
  })

  it('when looked at in both orientations, then axe finds nothing, every target is at least 48 px, nothing overflows or shifts', async () => {
    for (const [options, size] of [
      [TABLET, '1024x768'],
      [TABLET_PORTRAIT, '768x1024'],
    ] as const) {
      const guest = await openKiosk(browser, app, kiosk, options)
      opened.push(guest)
      const { page } = guest
      await page.evaluate(axe.source)
      const look = async (screen: string) => {
        await expect(audit(page), `${screen} at ${size}`).resolves.toEqual([])
        await expect(smallTargets(page), `${screen} at ${size}`).resolves.toEqual([])
        await expect(page.evaluate('document.documentElement.scrollWidth <= innerWidth'), `${screen} at ${size}`).resolves.toBe(true)
        await page.screenshot({ path: resolve(SCREENSHOTS, `kiosk-${screen}-${size}.png`), caret: 'hide' })
      }
      await look('welcome')
      await typeGroup(page, GROUP)
      await page.evaluate('scrollTo(0, 0)')
      await look('form')
      await page.getByRole('button', { name: 'Send me my photos' }).scrollIntoViewIfNeeded()
      await card(page, 0).getByLabel('Email').fill('not an address')
      await page.getByRole('button', { name: 'Send me my photos' }).tap()
      await look('form-errors')
      await card(page, 0).getByLabel('Email').fill('ada.kiosk@example.org')
      await page.getByRole('button', { name: 'Privacy notice' }).tap()
      await page.getByRole('dialog').locator('svg path').waitFor()
      await look('notice')
      await page.getByRole('button', { name: 'Close' }).tap()
      await page.getByRole('button', { name: 'Send me my photos' }).tap()
      await page.getByRole('heading', { name: /^Thank you/ }).waitFor()
      await look('done')
      // Layout shifts the guest did not cause (a message appearing under a finger is one they did).
      await expect(page.evaluate('window.unexpectedShift')).resolves.toBe(0)
    }
  })
})

/** axe-core's violations: every rule it runs by default, and target size (WCAG 2.2) too. */
async function audit(page: Page): Promise<{ id: string; targets: string[] }[]> {
  return page.evaluate<
    { id: string; targets: string[] }[]
  >(`axe.run(document, { rules: { 'target-size': { enabled: true } } }).then((results) =>
    results.violations.map((rule) => ({ id: rule.id, targets: rule.nodes.map((node) => node.target.join(' ')) })))`)
}

/** Controls a finger cannot hit squarely: under 48 CSS px either way (a checkbox counts by its label, the whole row). */
async function smallTargets(page: Page): Promise<string[]> {
  return page.locator('button, input:not([type=checkbox]), label.check').evaluateAll((elements: PageElement[]) =>
    elements
      .filter((element) => element.offsetParent !== null)
      .map((element) => ({ element, box: element.getBoundingClientRect() }))
      .filter(({ box }) => box.width < 48 || box.height < 48)
      .map(({ element, box }) => `${element.textContent || element.id}: ${Math.round(box.width)}×${Math.round(box.height)}`),
  )
}
