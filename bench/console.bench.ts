/**
 * The staff console (apps/console) on a laptop in the office or at the venue: the bytes of its first
 * load and the time until an event's live view can be used, in Chromium at 1280×800 on Lighthouse's
 * desktop profile as applied through the DevTools protocol (40 ms round trip, 10 Mbps down and up,
 * the CPU as it is), against the real service and its build, signed in as an owner.
 *
 *   pnpm bench:console            # or: pnpm bench console
 *   BENCH_CONSOLE_LOADS=5 pnpm bench:console
 *
 * Rows:
 * - first load, JS min+gzip: every script the console's page loads before its first screen, as sent
 *   (gzipped bodies, Content-Length); the page and its stylesheet are printed beside it.
 * - time to interactive, live view: from the navigation's start (a cold context: new HTTP cache) to
 *   the moment the event's live view has rendered its sessions with their handlers (the console's
 *   mark `console-live-interactive`, set when that render is committed: the member, the event, its
 *   numbers and the first page of 20 sessions have arrived) and it has painted; an event of 40
 *   sessions of two guests each. The median of BENCH_CONSOLE_LOADS (3).
 */
import { createStaffMember } from '@photobooth/server/modules/members/members.service'

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
  type EmulatedNetwork,
} from './support.js'

// Quick mode: one load.
const LOADS = Math.round(envNumber('BENCH_CONSOLE_LOADS', 3, 1, 1))
const SESSIONS = 40
const LAPTOP = { viewport: { width: 1280, height: 800 } }
/** Lighthouse's desktop profile: 40 ms, 10,240 kbps each way, no CPU slowdown. */
const DESKTOP_NETWORK = { latencyMs: 40, kbps: 10_240 }
const DESKTOP: EmulatedNetwork = {
  latencyMs: DESKTOP_NETWORK.latencyMs,
  downBytesPerSecond: (DESKTOP_NETWORK.kbps * 1024) / 8,
  upBytesPerSecond: (DESKTOP_NETWORK.kbps * 1024) / 8,
  connectionType: 'wifi',
}
const FIRST_LOAD_LIMIT = 200 * 1024
const INTERACTIVE_LIMIT_S = 2

cleanUpOnSignals()

async function main() {
  console.log(
    `console benchmark: node ${process.version}; Chromium at 1280×800, ${DESKTOP_NETWORK.latencyMs} ms, ${DESKTOP_NETWORK.kbps} kbps, ` +
      `CPU ×1; ${SESSIONS} sessions; ${LOADS} loads`,
  )
  const { browser, running } = await startBrowserBench('console')

  // An owner, signed in as the console signs in, and an event in full swing.
  const email = 'bench.owner@example.org'
  const password = 'pale violet kettle orbit'
  await createStaffMember({ auth: running.auth }, { email, name: 'Bench Owner', password, role: 'owner' })
  const origin = running.config.publicUrl
  const signedIn = await fetch(`${running.url}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password }),
  })
  const cookie = signedIn.headers
    .getSetCookie()
    .find((line) => /session_token=/.test(line))
    ?.split(';')[0]
  if (!cookie) throw new Broken(`no session cookie (sign-in answered ${signedIn.status})`)
  const staff = (path: string, body: unknown) =>
    fetch(`${running.url}${path}`, {
      method: 'POST',
      headers: { cookie, origin, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => {
      if (!response.ok) throw new Broken(`${path} answered ${response.status}: ${await response.text()}`)
      return (await response.json()) as { id: string }
    })
  const event = await staff('/staff/events', { slug: 'bench-gala', name: 'Bench Gala', startAt: Date.now() })
  const set = await staff(`/staff/events/${event.id}/sets`, { slug: 'photo-wall', name: 'Photo Wall' })
  for (let i = 0; i < SESSIONS; i++) {
    const registered = await fetch(`${running.url}/sets/${set.id}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        guests: [
          { name: `Guest ${i} One`, email: `guest${i}@example.org` },
          { name: `Guest ${i} Two`, phone: `+1202555${String(1000 + i)}` },
        ],
      }),
    })
    if (registered.status !== 201) throw new Broken(`registration answered ${registered.status}`)
  }
  const liveUrl = `${running.url}/console/events/${event.id}`
  const [name, value] = cookie.split('=') as [string, string]

  const times: number[] = []
  let jsBytes = 0
  let files: string[] = []
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext(LAPTOP)
    await context.addCookies([{ name, value, url: running.url }])
    const page = await context.newPage()
    await emulate(page, DESKTOP)
    const code: { file: string; type: string; bytes: number }[] = []
    page.on('response', (response) => {
      const type = response.request().resourceType()
      if (['document', 'script', 'stylesheet'].includes(type))
        code.push({
          file: type === 'document' ? 'the page' : new URL(response.url()).pathname.split('/').pop()!,
          type,
          bytes: Number(response.headers()['content-length'] ?? 0),
        })
    })
    await page.goto(liveUrl)
    const ms = await interactiveAt(page, 'console-live-interactive')
    const shown = await page.locator('article.session').count()
    if (shown !== 20) throw new Broken(`the live view showed ${shown} sessions, not the first page of 20`)
    if (code.some((answer) => answer.bytes === 0)) throw new Broken(`an answer without Content-Length: ${JSON.stringify(code)}`)
    jsBytes = Math.max(
      jsBytes,
      code.filter((answer) => answer.type === 'script').reduce((sum, answer) => sum + answer.bytes, 0),
    )
    files = code.map((answer) => `${answer.file} ${answer.bytes.toLocaleString('en')} B`)
    times.push(ms)
    console.log(`load ${i + 1}: live view interactive at ${Math.round(ms)} ms`)
    await context.close()
  }

  const rows: Row[] = [
    {
      row: 'console: first load, JS min+gzip',
      value: `${jsBytes.toLocaleString('en')} B`,
      figures: files.join(', '),
      target: `≤ ${FIRST_LOAD_LIMIT.toLocaleString('en')} B (200 KB)`,
      result: verdict(jsBytes <= FIRST_LOAD_LIMIT),
    },
    {
      row: 'console: time to interactive, an event’s live view (20 of 40 sessions), laptop profile',
      value: `${(median(times) / 1000).toFixed(2)} s`,
      figures: `median of ${LOADS}: ${times.map((ms) => Math.round(ms)).join(', ')} ms; cold context each, ${DESKTOP_NETWORK.latencyMs} ms RTT, ${DESKTOP_NETWORK.kbps} kbps, CPU ×1`,
      target: `≤ ${INTERACTIVE_LIMIT_S} s`,
      result: verdict(median(times) <= INTERACTIVE_LIMIT_S * 1000),
    },
  ]
  reportRows(rows)
}

await runBenchmark(main)
