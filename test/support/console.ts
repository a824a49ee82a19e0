/**
 * The staff console (apps/console) as the browser tests drive it: a staff member's browser on the
 * service's own origin, signed in through the console's own screens, each screen checked with axe
 * and photographed at a phone's width (390 px) and a laptop's (1280 px).
 */
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'

import axe from 'axe-core'
import type { Browser, Page } from 'playwright-core'
import { expect } from 'vitest'

import { DESKTOP, openGuest, type Guest } from './browser.js'
import type { TestServer } from './harness.js'
import { totpCode } from './totp.js'

const ROOT = resolve(import.meta.dirname, '../..')
export const SCREENSHOTS = resolve(ROOT, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots')

/** A staff member's browser at the console, on the laptop's size (`look` also shows each screen at a phone's). */
export async function openConsole(browser: Browser, app: TestServer, path = '/console'): Promise<Guest> {
  await mkdir(SCREENSHOTS, { recursive: true })
  const staff = await openGuest(browser, app.url, { context: DESKTOP })
  await staff.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url })
  await staff.page.goto(path)
  return staff
}

/**
 * What the console did wrong in the browser: console errors, CSP violations, failed scripts. An API's
 * refusal that the page shows in words (a 401 before sign-in, a 403 of a role, a 409) is an answer,
 * which Chromium also logs as a failed load: those are left out.
 */
export function consoleProblems(staff: Guest): string[] {
  return staff.problems.filter((problem) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(problem))
}

/** Signs in on the console's own screens (with the app's next code when the member has a second factor). */
export async function signInAt(page: Page, email: string, password: string, totpURI?: string): Promise<void> {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  if (totpURI) {
    await page.getByRole('heading', { name: 'Your second factor' }).waitFor()
    // The next step's code: a code is taken once, and the set-up may have used this step's.
    await page.getByLabel('Code').fill(totpCode(totpURI, Date.now() + 30_000))
    await page.getByRole('button', { name: 'Verify' }).click()
  }
}

/** axe-core's violations on the page as it is: every rule it runs by default, and target size (WCAG 2.2). */
export async function audit(page: Page): Promise<{ id: string; targets: string[] }[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axe.source)
  return page.evaluate<
    { id: string; targets: string[] }[]
  >(`axe.run(document, { rules: { 'target-size': { enabled: true } } }).then((results) =>
    results.violations.map((rule) => ({ id: rule.id, targets: rule.nodes.map((node) => node.target.join(' ')) })))`)
}

/**
 * One screen as staff see it on a laptop (1280×800) and a phone (390×844): axe finds nothing (in
 * light and dark mode), nothing is wider than the screen, and a full-page screenshot is kept as
 * `console-<name>-<width>.png` (and the phone's in dark mode, `console-<name>-390-dark.png`).
 */
export async function look(page: Page, name: string): Promise<void> {
  try {
    for (const size of [
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ])
      await lookAt(page, name, size)
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 })
  }
}

async function lookAt(page: Page, name: string, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size)
  await expect(audit(page), `${name} at ${size.width} px`).resolves.toEqual([])
  // In a dark room (the phone's dark mode), the same: contrast is checked against the dark colours.
  await page.emulateMedia({ colorScheme: 'dark' })
  try {
    await expect(audit(page), `${name} at ${size.width} px, dark`).resolves.toEqual([])
    if (size.width === 390)
      await page.screenshot({
        path: resolve(SCREENSHOTS, `console-${name}-390-dark.png`),
        fullPage: true,
        caret: 'hide',
        animations: 'disabled',
        timeout: 90_000,
      })
  } finally {
    await page.emulateMedia({ colorScheme: 'light' })
  }
  await expect(
    page.evaluate<boolean>('document.documentElement.scrollWidth <= innerWidth'),
    `${name} at ${size.width} px is wider than the screen`,
  ).resolves.toBe(true)
  await page.screenshot({
    path: resolve(SCREENSHOTS, `console-${name}-${size.width}.png`),
    fullPage: true,
    caret: 'hide',
    animations: 'disabled',
    // The machine may be busy (CI runs the suites beside each other's builds): a full page takes its time.
    timeout: 90_000,
  })
}

/** Opens a screen of the menu (on a laptop's width, where the menu is always shown). */
export async function openMenu(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click()
}

/** The names of the menu's screens the member is shown. */
export async function menuOf(page: Page): Promise<string[]> {
  return (await page.getByRole('navigation', { name: 'Console' }).getByRole('listitem').allTextContents()).map((text) => text.trim())
}
