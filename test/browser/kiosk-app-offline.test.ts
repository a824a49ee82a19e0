/**
 * The kiosk app offline (issue 32), in Chromium at 1024×768 with touch, the network cut through the
 * DevTools protocol: groups keep registering, the kiosk is reloaded with the network still gone and
 * starts from its service worker and its kept context, and once the network is back the SDK's queue
 * sends every group once, in order, under the rate limit; a group keeps the privacy notice it read
 * even when staff change it before the kiosk is back online.
 */
import type { Browser, CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { closeGuests, launchChromium, type Guest } from '../support/browser.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { createKioskEvent, openKiosk, registerGroup } from '../support/kiosk-app.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'
import { until } from '../support/until.js'

let app: TestServer
let staff: StaffSession
let browser: Browser
const opened: Guest[] = []

beforeAll(async () => {
  app = await startTestServer()
  staff = await signedInStaff(app)
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  // Offline, Chromium reports each refused request as a console error: those are the test's own doing.
  for (const guest of opened)
    guest.problems.splice(0, Infinity, ...guest.problems.filter((problem) => !problem.includes('ERR_INTERNET_DISCONNECTED')))
  await closeGuests(opened)
  await browser?.close()
  await app?.stop()
})

const FIRST_NAMES = [
  'Ada', 'Grace', 'Katherine', 'Dorothy', 'Mary', 'Hedy', 'Radia', 'Frances', 'Barbara', 'Margaret',
  'Jean', 'Betty', 'Kathleen', 'Marlyn', 'Ruth', 'Edith', 'Annie', 'Evelyn', 'Joan', 'Sophie',
] // prettier-ignore

/** A tablet on the kiosk, with its service worker in charge and the DevTools protocol to cut its network. */
async function offlineCapableKiosk(settings: Record<string, unknown> = {}) {
  const kiosk = await createKioskEvent(app, staff, settings)
  const guest = await openKiosk(browser, app, kiosk)
  opened.push(guest)
  const { page, context } = guest
  // Installed: the app's files are kept.
  await page.evaluate('navigator.serviceWorker.ready.then(() => undefined)')
  const cdp = await context.newCDPSession(page)
  const answers: number[] = []
  page.on('response', (response) => {
    if (/\/sets\/[^/]+\/sessions$/.test(new URL(response.url()).pathname)) answers.push(response.status())
  })
  return { kiosk, page, cdp, answers }
}

const setOffline = (cdp: CDPSession, offline: boolean) =>
  cdp.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })

const statusLine = (page: Page) => page.getByRole('status').filter({ hasText: /Online|Offline/ })

async function registerOne(page: Page, name: string) {
  await registerGroup(page, [{ name: `${name} Kiosk`, email: `${name.toLowerCase()}.offline@example.org` }])
  await page.getByRole('button', { name: 'Next group' }).tap()
}

const sessionsOf = (setId: string) =>
  app.orm.em
    .fork()
    .execute<{ label: string }[]>('select label from session where set_id = ? order by created_at, id', [setId])
    .then((rows) => rows.map((row) => row.label))

describe('the kiosk app with the venue’s network gone', () => {
  it('when 20 groups register offline, through a reload, then once online each is registered once, in order, with no 429', async () => {
    const { kiosk, page, cdp, answers } = await offlineCapableKiosk()
    await setOffline(cdp, true)
    await statusLine(page).filter({ hasText: 'Offline' }).waitFor()

    for (const name of FIRST_NAMES.slice(0, 10)) await registerOne(page, name)
    await statusLine(page).filter({ hasText: '10 groups waiting to send' }).waitFor()

    // Reloaded with the network still gone: the service worker serves the app, the context is kept,
    // and the queue is read back from IndexedDB.
    await page.reload()
    await page.getByRole('button', { name: 'Start' }).waitFor()
    await page.getByRole('heading', { name: 'Summer Gala' }).waitFor()
    await statusLine(page).filter({ hasText: 'Offline: registrations are kept on this tablet · 10 groups waiting to send' }).waitFor()
    for (const name of FIRST_NAMES.slice(10)) await registerOne(page, name)
    await statusLine(page).filter({ hasText: '20 groups waiting to send' }).waitFor()
    expect(await sessionsOf(kiosk.set.id)).toEqual([])

    await setOffline(cdp, false)
    // Paced under the rate limit (50 a minute): about 24 s for 20.
    const labels = await until(
      () => sessionsOf(kiosk.set.id),
      (rows) => rows.length >= 20,
      90_000,
    )
    await statusLine(page)
      .filter({ hasText: /^Online$/ })
      .waitFor({ timeout: 10_000 })
    expect(labels).toEqual(FIRST_NAMES.map((name) => `${name} Kiosk`))
    expect(answers.filter((status) => status !== 201)).toEqual([])
    expect(answers).toHaveLength(20)
    // Nothing of the groups is left on the tablet once sent: the queue's store is empty.
    const kept = await page.evaluate<number>(`new Promise((resolve, reject) => {
      const request = indexedDB.open('photobooth-kiosk')
      request.onsuccess = () => {
        const count = request.result.transaction('calls').objectStore('calls').count()
        count.onsuccess = () => resolve(count.result)
        count.onerror = () => reject(new Error('count failed'))
      }
      request.onerror = () => reject(new Error('open failed'))
    })`)
    expect(kept).toBe(0)
  }, 180_000)

  it('when a group is queued offline under notice A and staff change it to B before the network returns, then that group’s guests are recorded under A, the next group’s under B', async () => {
    const { kiosk, page, cdp } = await offlineCapableKiosk({ privacyNotice: { version: 'A', text: 'Notice A.' } })
    await setOffline(cdp, true)
    await registerOne(page, 'Ada')
    const changed = await staffFetch(app, staff, `/staff/events/${kiosk.event.id}`, {
      method: 'PATCH',
      body: { privacyNotice: { version: 'B', text: 'Notice B.' } },
    })
    expect(changed.status).toBe(200)
    await setOffline(cdp, false)
    await until(
      () => sessionsOf(kiosk.set.id),
      (rows) => rows.length === 1,
    )

    // Back online, the kiosk reads the event again: the next group is shown B.
    await page.getByRole('button', { name: 'Start' }).tap()
    await page.getByRole('button', { name: 'Privacy notice' }).tap()
    await page.getByRole('dialog').getByText('Notice B.').waitFor()
    await page.getByRole('button', { name: 'Close' }).tap()
    await page.getByRole('button', { name: 'Start over' }).tap()
    await registerOne(page, 'Grace')
    await until(
      () => sessionsOf(kiosk.set.id),
      (rows) => rows.length === 2,
    )

    const versions = await app.orm.em.fork().execute<{ name: string; version: string }[]>(
      `select g.first_name as name, g.privacy_notice_version as version
           from session_guest g join session s on s.id = g.session_id
          where s.set_id = ? order by s.created_at`,
      [kiosk.set.id],
    )
    expect(versions).toEqual([
      { name: 'Ada', version: 'A' },
      { name: 'Grace', version: 'B' },
    ])
  }, 120_000)
})
