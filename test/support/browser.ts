import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { expect } from 'vitest'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`); playwright-core only drives it, it downloads nothing. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'

export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args] })
}

/** A phone as guests hold one (an iPhone 14's CSS size), and a laptop. */
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } }

/** What happened in the browser, in order, with a wait for the next ones (no sleeping). */
export class Recorder<T> {
  readonly items: T[] = []
  private readonly waiters = new Set<() => void>()

  constructor(private readonly what: string) {}

  push(item: T): void {
    this.items.push(item)
    this.waiters.forEach((check) => check())
  }

  /** Resolves with every item once there are `count` of them. */
  count(count: number, ms = 10_000): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.items.length < count) return
        this.waiters.delete(check)
        clearTimeout(timer)
        resolve([...this.items])
      }
      const timer = setTimeout(() => {
        this.waiters.delete(check)
        reject(new Error(`${this.items.length} of ${count} ${this.what} within ${ms} ms: ${JSON.stringify(this.items)}`))
      }, ms)
      this.waiters.add(check)
      check()
    })
  }
}

/** A beacon the page sent to `/track`, once the service has answered it (its row is then committed). */
export type Beacon = { body: unknown; status: number | undefined }

/** What a page handed to `navigator.share`, files described by name, type and size. */
export type Shared = { title?: string; url?: string; files: { name: string; type: string; size: number }[] }

/**
 * A guest's browser (one context, one page) on the service at `origin`, watched for what would
 * show the guest a broken page: console errors, uncaught exceptions, Content-Security-Policy
 * violations. A request to any other origin is recorded and aborted: nothing leaves the machine.
 */
export type Guest = {
  context: BrowserContext
  page: Page
  problems: string[]
  foreign: string[]
  /** The bodies of the requests to `/track`, as they leave the page. */
  sent: unknown[]
  /** The same beacons, as the service answered them. */
  beacons: Recorder<Beacon>
  /** With `webShare`: every call of `navigator.share`. */
  shared: Recorder<Shared>
}

export type GuestOptions = {
  context?: BrowserContextOptions
  /**
   * Web Share as phones have it (headless Chromium on Linux has none): `navigator.share` records
   * what it is given and resolves, `navigator.canShare` says yes.
   */
  webShare?: boolean
}

export async function openGuest(
  browser: Browser,
  origin: string,
  { context: options = PHONE, webShare = false }: GuestOptions = {},
): Promise<Guest> {
  const context = await browser.newContext({ ...options, baseURL: origin })
  const problems: string[] = []
  const foreign: string[] = []
  const sent: unknown[] = []
  const beacons = new Recorder<Beacon>('beacons answered')
  const shared = new Recorder<Shared>('shares')

  // Bindings and init scripts come in through DevTools: the page's own policy does not apply to them.
  await context.exposeBinding(
    'reportSecurityPolicyViolation',
    (_source, violation: string) => void problems.push(`CSP violation: ${violation}`),
  )
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      window.reportSecurityPolicyViolation(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber))`,
  })
  if (webShare) {
    await context.exposeBinding('recordShare', (_source, data: Shared) => shared.push(data))
    await context.addInitScript({
      content: `navigator.canShare = () => true
        navigator.share = async (data) => window.recordShare({
          ...(data.title === undefined ? {} : { title: data.title }),
          ...(data.url === undefined ? {} : { url: data.url }),
          files: (data.files || []).map((file) => ({ name: file.name, type: file.type, size: file.size })),
        })`,
    })
  }

  // A page answered with an error status (a 404 page) is reported by Chromium itself as a failed
  // load: that status is the test's to assert, not a fault of the page.
  const refusedDocuments = new Set<string>()
  context.on('response', (response) => {
    if (response.request().resourceType() === 'document' && response.status() >= 400) refusedDocuments.add(response.url())
  })
  context.on('console', (message) => {
    if (message.type() !== 'error') return
    const { url } = message.location()
    if (refusedDocuments.has(url) && message.text().startsWith('Failed to load resource: the server responded with a status of')) return
    problems.push(`console error: ${message.text()} (${url})`)
  })
  context.on('weberror', (error) => void problems.push(`page error: ${error.error().message}`))

  const elsewhere = (url: URL) => url.origin !== origin && url.protocol !== 'data:'
  await context.route(elsewhere, (route) => route.abort('blockedbyclient'))
  context.on('request', (request) => {
    const url = new URL(request.url())
    if (elsewhere(url)) foreign.push(request.url())
    if (url.origin === origin && url.pathname === '/track') sent.push(request.postDataJSON())
  })
  context.on('requestfinished', (request) => {
    if (new URL(request.url()).pathname !== '/track') return
    void request.response().then((response) => beacons.push({ body: request.postDataJSON(), status: response?.status() }))
  })
  context.on('requestfailed', (request) => {
    // A page-close beacon still in flight when the test closes the browser is cut by the closing
    // (net::ERR_ABORTED), not by the page or the service: a guest's own browser sends it on.
    if (closing.has(context) && request.failure()?.errorText === 'net::ERR_ABORTED') return
    if (new URL(request.url()).pathname === '/track') problems.push(`beacon failed: ${request.failure()?.errorText}`)
  })

  return { context, page: await context.newPage(), problems, foreign, sent, beacons, shared }
}

/** The guests' browsers being closed by the test (closeGuests). */
const closing = new WeakSet<BrowserContext>()

/** Closes the guests' browsers and checks that no page they opened showed an error, broke its policy or asked another origin. */
export async function closeGuests(opened: Guest[]): Promise<void> {
  for (const guest of opened) closing.add(guest.context)
  await Promise.all(opened.map((guest) => guest.context.close()))
  for (const guest of opened) {
    expect(guest.problems).toEqual([])
    expect(guest.foreign).toEqual([])
  }
}

/** What a page's `<img>` is, to a test's `evaluate`. */
export type ShownImage = {
  currentSrc: string
  alt: string
  naturalWidth: number
  naturalHeight: number
  decode(): Promise<void>
  getAttribute(name: string): string | null
  getBoundingClientRect(): { width: number }
}

/** A photo of the grid as the guest sees it. */
export type ShownPhoto = {
  width: string | null
  height: string | null
  cssWidth: number
  pixels: [number, number]
  src: string
  alt: string
}

/**
 * Each photo of the page's grid as the guest sees it, in page order, once loaded and decoded (lazy
 * ones scrolled to): its size attributes, its width on the screen, the file it shows (`currentSrc`)
 * and that file's own pixel size, its description.
 */
export async function photosShown(page: Page): Promise<ShownPhoto[]> {
  const shown: ShownPhoto[] = []
  for (const image of await page.locator('.photos img').all()) {
    await image.scrollIntoViewIfNeeded()
    shown.push(
      await image.evaluate(async (img: ShownImage) => {
        // An image of `srcset` reports its natural size in CSS pixels (divided by the density the
        // browser chose); a fresh image of the same file reports the file's own.
        const pixelsOf = async (url: string): Promise<[number, number]> => {
          const probe = new (globalThis as unknown as { Image: new () => ShownImage & { src: string } }).Image()
          probe.src = url
          await probe.decode()
          return [probe.naturalWidth, probe.naturalHeight]
        }
        await img.decode()
        return {
          width: img.getAttribute('width'),
          height: img.getAttribute('height'),
          cssWidth: img.getBoundingClientRect().width,
          pixels: await pixelsOf(img.currentSrc),
          src: img.currentSrc,
          alt: img.alt,
        }
      }),
    )
  }
  return shown
}

/** A blank page on 127.0.0.1, an origin of its own for a page that calls the service (a dashboard, a kiosk). */
export async function blankPageServer(title: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${title}</title>`),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port }
}
