/**
 * The kiosk app (apps/kiosk) as the browser tests drive it: a venue's tablet (1024×768, touch) on
 * the service's own origin, an event made through the staff API, and a group typed in as guests type.
 */
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

import { openGuest, type Guest } from './browser.js'
import type { TestServer } from './harness.js'
import { uniqueSlug } from './harness.js'
import { staffFetch, type StaffSession } from './staff.js'

/** A mid-range tablet held in landscape, and in portrait. */
export const TABLET: BrowserContextOptions = {
  viewport: { width: 1024, height: 768 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
}
export const TABLET_PORTRAIT: BrowserContextOptions = { ...TABLET, viewport: { width: 768, height: 1024 } }

export type KioskEvent = { event: { id: string; slug: string }; set: { id: string; slug: string; kioskUrl: string } }

/** An event and one set, made by staff as they would; `settings` are the event's (notice, language, branding…). */
export async function createKioskEvent(app: TestServer, staff: StaffSession, settings: Record<string, unknown> = {}): Promise<KioskEvent> {
  const created = await staffFetch(app, staff, '/staff/events', {
    method: 'POST',
    body: { slug: uniqueSlug('kiosk'), name: 'Summer Gala', startAt: Date.now(), ...settings },
  })
  expect(created.status).toBe(201)
  const event = await created.json()
  const set = await (
    await staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'photo-wall', name: 'Photo Wall' } })
  ).json()
  return { event, set }
}

/**
 * The set's kiosk on a tablet, opened at the `kioskUrl` staff are given, on its welcome screen (its
 * button `start`, in the event's language). The page adds up the layout shifts no input caused
 * (`window.unexpectedShift`), as Chromium reports them.
 */
export async function openKiosk(
  browser: Browser,
  app: TestServer,
  kiosk: KioskEvent,
  context: BrowserContextOptions = TABLET,
  start = 'Start',
): Promise<Guest> {
  const guest = await openGuest(browser, app.url, { context })
  await guest.context.addInitScript({
    content: `window.unexpectedShift = 0
      new PerformanceObserver((list) => { for (const shift of list.getEntries()) if (!shift.hadRecentInput) window.unexpectedShift += shift.value })
        .observe({ type: 'layout-shift', buffered: true })`,
  })
  await guest.page.goto(kiosk.set.kioskUrl)
  await guest.page.getByRole('button', { name: start }).waitFor()
  return guest
}

/** What a test reads of an element in the page (the tests' program has no DOM types). */
export type PageElement = {
  id: string
  value: string
  autocomplete: string
  name: string
  textContent: string | null
  naturalWidth: number
  offsetParent: unknown
  getAttribute(name: string): string | null
  getBoundingClientRect(): { width: number; height: number }
  ownerDocument: { activeElement: unknown; getElementById(id: string): { textContent: string | null } | null }
}

export type GroupGuest = { name: string; email?: string; phone?: string; marketingOptIn?: boolean; listed?: boolean }

/** The guest's card on the form (`Guest 2`). */
export const card = (page: Page, index: number): Locator => page.locator('.guest').nth(index)

/** From the welcome screen: Start, as many guests as the group has, each typed in as a guest types (the phone key by key). */
export async function typeGroup(page: Page, guests: readonly GroupGuest[]): Promise<void> {
  await page.getByRole('button', { name: 'Start' }).tap()
  for (let i = 1; i < guests.length; i++) await page.getByRole('button', { name: 'Add a guest' }).tap()
  for (const [index, guest] of guests.entries()) {
    const form = card(page, index)
    await form.getByLabel('Name').fill(guest.name)
    if (guest.email) await form.getByLabel('Email').fill(guest.email)
    if (guest.phone) await form.getByLabel('Mobile phone').pressSequentially(guest.phone)
    if (guest.marketingOptIn) await form.getByRole('checkbox', { name: /news and offers/ }).tap()
    if (guest.listed === false) await form.getByRole('checkbox', { name: /event’s page/ }).tap()
  }
}

/** Types the group and sends it; resolves on the confirmation screen. */
export async function registerGroup(page: Page, guests: readonly GroupGuest[]): Promise<void> {
  await typeGroup(page, guests)
  await page.getByRole('button', { name: 'Send me my photos' }).tap()
  await page.getByRole('heading', { name: /^Thank you/ }).waitFor()
}

/** The messages a field is described by (its error, the contact line), as a screen reader reads them. */
export async function descriptionOf(field: Locator): Promise<string> {
  return field.evaluate((element: PageElement) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter(Boolean)
      .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' '),
  )
}

/**
 * Everything of a group the page could still show or give back: its markup, every field's value,
 * the history's state and length, the page's storage. The offline queue's IndexedDB is not here: it
 * holds a group only until it is sent (checked by the offline test).
 */
export async function whatThePageKeeps(page: Page): Promise<string> {
  // A string: the tests' program has no DOM types.
  return page.evaluate<string>(`JSON.stringify({
    html: document.documentElement.outerHTML,
    values: [...document.querySelectorAll('input, textarea, select')].map((field) => field.value),
    historyState: history.state,
    historyLength: history.length,
    local: { ...localStorage },
    session: { ...sessionStorage },
  })`)
}
