/**
 * The kiosk app (apps/kiosk) on a tablet's first start and its later ones: the bytes of its first
 * load and its time to interactive, in Chromium at 1024×768 ×2 on Lighthouse's slow 4G profile as
 * Lighthouse applies it through the DevTools protocol ("devtools" throttling: 562.5 ms request
 * latency, 1.44 Mbps down, 675 kbps up, the CPU slowed 4×), against the real service and its build.
 *
 *   pnpm bench:kiosk-app            # or: pnpm bench kiosk-app
 *   BENCH_KIOSK_LOADS=5 pnpm bench:kiosk-app
 *   BENCH_KIOSK_TIMELINE=1 pnpm bench:kiosk-app   # and each first start's timeline (resources, long frames, paints)
 *
 * Rows:
 * - first load, min+gzip: every HTML, CSS and JS answer the page asks for on a tablet's first visit
 *   (the page, its stylesheet and script, and the phone formatter it fetches once the first screen is
 *   up), as sent: gzipped bodies (Content-Length). Its service worker then keeps the whole build
 *   (the privacy notice's QR code too), printed beside it.
 * - time to interactive, first start: from the navigation's start until the kiosk's welcome screen
 *   (the event's name, the Start button) is both rendered with its handlers (the app's mark
 *   `kiosk-interactive`, set when that render is committed, after its context has arrived) and
 *   painted (the first contentful paint: the screen appears in one piece); a cold context (new HTTP
 *   cache, no service worker) per load, the median of BENCH_KIOSK_LOADS (3).
 * - the same first start with the CPU unthrottled, for context: the network's share of the time.
 * - time to interactive, later start: the same tablet reloaded, its service worker serving the app
 *   (and the kept context showing before the service answers).
 */
import { availableParallelism, loadavg } from 'node:os'

import { createEvent } from '@photobooth/server/modules/events/events.service'

import { reportRows, verdict, type Row } from './rows.js'
import {
  Broken,
  cleanUpOnSignals,
  emulate,
  envNumber,
  interactiveAt,
  median,
  runBenchmark,
  startBrowserBench,
  type Page,
} from './support.js'

// Quick mode: one load.
const LOADS = Math.round(envNumber('BENCH_KIOSK_LOADS', 3, 1, 1))
const TABLET = { viewport: { width: 1024, height: 768 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
/** Lighthouse's `mobileSlow4G`, with the adjustments its DevTools throttling applies (×3.75 latency, ×0.9 throughput). */
const SLOW_4G = { latencyMs: 150 * 3.75, downKbps: 1.6 * 1024 * 0.9, upKbps: 750 * 0.9, cpuSlowdown: 4 }
const FIRST_LOAD_LIMIT = 60 * 1024
const INTERACTIVE_LIMIT_S = 1.5

cleanUpOnSignals()

/** The tablet's slow 4G, and its CPU slowed `cpuSlowdown` times. */
const throttle = (page: Page, cpuSlowdown = SLOW_4G.cpuSlowdown) =>
  emulate(page, {
    latencyMs: SLOW_4G.latencyMs,
    downBytesPerSecond: (SLOW_4G.downKbps * 1024) / 8,
    upBytesPerSecond: (SLOW_4G.upKbps * 1024) / 8,
    connectionType: 'cellular4g',
    cpuSlowdown,
  })

/** Loads (or reloads) the kiosk and answers its time to interactive in ms, with what the page asked for. */
async function interactive(page: Page, load: () => Promise<unknown>) {
  const asked: { url: string; type: string; bytes: number; fromWorker: boolean }[] = []
  const onResponse = (response: Awaited<ReturnType<Page['waitForResponse']>>) => {
    const type = response.request().resourceType()
    asked.push({
      url: response.url(),
      type,
      bytes: Number(response.headers()['content-length'] ?? 0),
      fromWorker: response.fromServiceWorker(),
    })
  }
  page.on('response', onResponse)
  await load()
  const ms = await interactiveAt(page, 'kiosk-interactive')
  // The phone formatter follows the first screen: part of the first load's bytes.
  await page.waitForLoadState('networkidle')
  page.off('response', onResponse)
  return { ms, asked }
}

async function main() {
  console.log(
    `kiosk app benchmark: node ${process.version}; Chromium at ${TABLET.viewport.width}×${TABLET.viewport.height} ×${TABLET.deviceScaleFactor}, ` +
      `slow 4G (${SLOW_4G.latencyMs} ms, ${Math.round(SLOW_4G.downKbps)} kbps down, CPU ×${SLOW_4G.cpuSlowdown}), ${LOADS} loads per case`,
  )
  const { browser, running } = await startBrowserBench('kiosk')
  await createEvent(running.orm.em.fork(), {
    slug: 'bench-gala',
    name: 'Bench Gala',
    startAt: new Date(),
    privacyNoticeVersion: '2026-06',
    privacyNoticeText: 'We keep your contact to send you your photos.',
    sets: [{ slug: 'photo-wall', name: 'Photo Wall' }],
  })
  const kioskUrl = `${running.url}/kiosk/bench-gala/photo-wall`

  const first: number[] = []
  const later: number[] = []
  let firstBytes = 0
  let firstFiles: string[] = []
  let contextFetches = 0
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext(TABLET)
    const page = await context.newPage()
    await throttle(page)
    const cold = await interactive(page, () => page.goto(kioskUrl))
    const code = cold.asked.filter((answer) => ['document', 'script', 'stylesheet'].includes(answer.type))
    if (code.some((answer) => answer.bytes === 0)) throw new Broken(`an answer without Content-Length: ${JSON.stringify(code)}`)
    firstBytes = Math.max(
      firstBytes,
      code.reduce((sum, answer) => sum + answer.bytes, 0),
    )
    firstFiles = code.map((answer) => `${new URL(answer.url).pathname.split('/').pop() || 'index.html'} ${answer.bytes} B`)
    contextFetches = Math.max(
      contextFetches,
      cold.asked.filter((answer) => answer.url.includes('/events/bench-gala/sets/photo-wall')).length,
    )
    first.push(cold.ms)
    if (process.env.BENCH_KIOSK_TIMELINE)
      console.log(
        await page.evaluate(
          `JSON.stringify(performance.getEntries().map((e) => [e.name.split('/').pop(), e.entryType, Math.round(e.startTime), Math.round(e.responseEnd ?? e.duration ?? 0)]))`,
        ),
      )
    // Installed: its service worker keeps the build (a string: the bench's program has no DOM types).
    await page.evaluate('navigator.serviceWorker.ready.then(() => undefined)')
    const warm = await interactive(page, () => page.reload())
    if (!warm.asked.some((answer) => answer.type === 'document' && answer.fromWorker))
      throw new Broken('the reload was not served by the service worker')
    later.push(warm.ms)
    console.log(`load ${i + 1}: first start ${Math.round(cold.ms)} ms, later start ${Math.round(warm.ms)} ms`)
    await context.close()
  }
  // The same first start with the CPU at its own speed: what of the time is the network's.
  const networkOnly: number[] = []
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext(TABLET)
    const page = await context.newPage()
    await throttle(page, 1)
    networkOnly.push((await interactive(page, () => page.goto(kioskUrl))).ms)
    await context.close()
  }
  const kept = await fetch(`${running.url}/kiosk/sw.js`).then((response) => response.text())
  const keptFiles = JSON.parse(/\{"version":"\w+","files":(\[[^\]]*\])\}/.exec(kept)![1]!) as string[]
  let keptBytes = 0
  for (const file of keptFiles) keptBytes += Number((await fetch(`${running.url}/kiosk/${file}`)).headers.get('content-length'))

  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
  const rows: Row[] = [
    {
      row: 'kiosk app: first load, HTML + CSS + JS, min+gzip',
      value: `${firstBytes.toLocaleString('en')} B`,
      figures: `${firstFiles.join(', ')}; the service worker then keeps ${keptFiles.length} files, ${keptBytes.toLocaleString('en')} B`,
      target: `≤ ${FIRST_LOAD_LIMIT.toLocaleString('en')} B (60 KB)`,
      result: verdict(firstBytes <= FIRST_LOAD_LIMIT),
    },
    {
      row: 'kiosk app: time to interactive, first start, slow 4G, CPU ×4',
      value: seconds(median(first)),
      figures: `median of ${LOADS}: ${first.map((ms) => Math.round(ms)).join(', ')} ms; context fetched ${contextFetches}× (preloaded with the page); load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
      target: `≤ ${INTERACTIVE_LIMIT_S} s`,
      result: verdict(median(first) <= INTERACTIVE_LIMIT_S * 1000),
    },
    {
      row: 'kiosk app: time to interactive, first start, slow 4G, CPU ×1',
      value: seconds(median(networkOnly)),
      figures: `median of ${LOADS}: ${networkOnly.map((ms) => Math.round(ms)).join(', ')} ms: the network's share (two round trips of ${SLOW_4G.latencyMs} ms)`,
      target: '(none)',
      result: 'info',
    },
    {
      row: 'kiosk app: time to interactive, later start (service worker), slow 4G, CPU ×4',
      value: seconds(median(later)),
      figures: `median of ${LOADS}: ${later.map((ms) => Math.round(ms)).join(', ')} ms`,
      target: `≤ ${INTERACTIVE_LIMIT_S} s`,
      result: verdict(median(later) <= INTERACTIVE_LIMIT_S * 1000),
    },
  ]
  reportRows(rows)
}

await runBenchmark(main)
