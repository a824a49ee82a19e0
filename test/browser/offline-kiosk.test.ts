/**
 * A browser kiosk that keeps working offline (issue 23): a page on its own origin, built from the
 * packed SDK (its kiosk client and its offline queue with the IndexedDB store), registers guests
 * while Chromium is offline (the DevTools protocol's network emulation), is reloaded while still
 * offline, then goes online: every guest is registered once, in order.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { build } from 'esbuild'
import type { Browser, CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { launchChromium } from '../support/browser.js'
import { seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { packSdk, sdkDir, unpack } from '../support/sdk-package.js'

/**
 * The kiosk's origin, another than the service's: its page and script are served by the test
 * itself, whatever the network's state (as a kiosk's app shell would be from its cache).
 */
const KIOSK_ORIGIN = 'http://kiosk.test'

/**
 * A page served by the test has no address, so Chromium counts it as public, and its Local Network
 * Access checks refuse its requests to the service on loopback. A real kiosk's page and service
 * are both on the venue's network or both public: the check is off for this browser only.
 */
const WITHOUT_LOCAL_NETWORK_CHECKS = ['--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessRespectPreflightResults']

/** The kiosk app: the packed SDK's kiosk client and queue, with the guests' screen count and the queue's events. */
const KIOSK_APP = `
import { createKioskClient } from '@photobooth/sdk/kiosk'
import { createOfflineQueue, indexedDbStore } from '@photobooth/sdk/queue'

const api = new URLSearchParams(location.search).get('api')
const queue = createOfflineQueue({
  client: createKioskClient({ baseUrl: api, retry: false, deadlineMs: 5000 }),
  store: indexedDbStore('kiosk-test'),
  retry: { minDelayMs: 200, maxDelayMs: 1000 },
})
const events = []
for (const type of ['queued', 'sent', 'failed', 'waiting'])
  queue.on(type, (event) => events.push({ type, id: event.call.id, count: event.count, label: event.result?.label }))
window.kiosk = {
  register: (setId, name, email) =>
    queue.registerGuests({ params: { setId }, body: { guests: [{ name, email }] } }).then((outcome) => outcome.status),
  count: () => queue.ready.then(() => queue.count),
  drained: () => queue.drained().then(() => events),
}
`

let app: TestServer
let browser: Browser
let work: string
let script: string
let setId: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'photobooth-offline-kiosk-'))
  const { tarballs } = await packSdk(work, ['pnpm'])
  // Where an app's install puts it: resolved through the package's own exports.
  await unpack(tarballs.pnpm, join(work, 'node_modules/@photobooth/sdk'))
  const bundle = await build({
    stdin: { contents: KIOSK_APP, resolveDir: work, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    // The tarball's dependencies, as an app's install would have them.
    nodePaths: [join(sdkDir, 'node_modules')],
  })
  script = bundle.outputFiles[0]!.text
  app = await startTestServer({ corsOrigins: [KIOSK_ORIGIN] })
  setId = (await seedEvent(app.orm)).sets[0]!.id
  browser = await launchChromium(WITHOUT_LOCAL_NETWORK_CHECKS)
}, 300_000)
afterAll(async () => {
  await browser?.close()
  await app?.stop()
  if (work) await rm(work, { recursive: true, force: true })
})

/** The kiosk's page and script, served whatever the network's state. */
async function openKiosk(page: Page): Promise<void> {
  await page.route(`${KIOSK_ORIGIN}/**`, (route) => {
    const isScript = new URL(route.request().url()).pathname === '/kiosk.js'
    return route.fulfill(
      isScript
        ? { contentType: 'text/javascript', body: script }
        : { contentType: 'text/html', body: '<!doctype html><title>Kiosk</title><script type="module" src="/kiosk.js"></script>' },
    )
  })
  await page.goto(`${KIOSK_ORIGIN}/?api=${encodeURIComponent(app.url)}`)
  await page.waitForFunction(() => 'kiosk' in globalThis)
}

const setOffline = (cdp: CDPSession, offline: boolean) =>
  cdp.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })

type Kiosk = {
  register: (setId: string, name: string, email: string) => Promise<string>
  count: () => Promise<number>
  drained: () => Promise<{ type: string; id: string; count: number; label?: string }[]>
}
declare const kiosk: Kiosk

describe('a browser kiosk offline', () => {
  it('when guests register while Chromium is offline and the page is reloaded, then going online registers each once, in order', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await openKiosk(page)
    await setOffline(cdp, true)

    const names = ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']
    const outcomes: string[] = []
    for (const [index, name] of names.entries())
      outcomes.push(
        await page.evaluate((guest) => kiosk.register(guest.setId, guest.name, guest.email), {
          setId,
          name,
          email: `offline${index}@example.org`,
        }),
      )
    expect(outcomes).toEqual(['queued', 'queued', 'queued'])
    expect(await page.evaluate(() => kiosk.count())).toBe(3)

    // The kiosk is reloaded, still offline: the queue is read back from IndexedDB.
    await page.reload()
    await page.waitForFunction(() => 'kiosk' in globalThis)
    expect(await page.evaluate(() => kiosk.count())).toBe(3)
    const sessions = () =>
      app.orm.em.fork().execute<{ label: string }[]>('select label from session where set_id = ? order by created_at, id', [setId])
    expect(await sessions()).toEqual([])

    // Online again: the browser's `online` event wakes the queue.
    await setOffline(cdp, false)
    const events = await page.evaluate(() => kiosk.drained())
    expect(events.filter((event) => event.type === 'sent').map((event) => event.label)).toEqual(names)
    expect((await sessions()).map((row) => row.label)).toEqual(names)
    expect(await page.evaluate(() => kiosk.count())).toBe(0)
    await context.close()
  })
})
