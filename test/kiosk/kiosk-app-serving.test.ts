/**
 * The kiosk app as the service serves it (issue 32): at the `kioskUrl` staff are given, its shell
 * under the service's strict Content-Security-Policy (no inline script, nothing from another origin),
 * revalidated at every start, with a preload of its kiosk context; its hashed files cached for good
 * and gzipped; its service worker revalidated; a file it does not have is the service's JSON 404.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { buildApps } from '../../apps/build.js'
import { seedEvent, withTestServer } from '../support/harness.js'
import { signedInStaff, staffFetch } from '../support/staff.js'

// The kiosk's build, as `pnpm start` and the browser suite make it (a few milliseconds when it is fresh).
beforeAll(() => buildApps({ staleOnly: true, only: ['kiosk'] }), 120_000)
const app = withTestServer()

const directives = (policy: string) =>
  new Map(policy.split(';').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]))

describe('the kiosk app, served by the service', () => {
  it("when a tablet opens a set's kioskUrl, then it gets the app's shell: revalidated, under the strict policy, with its context preloaded", async () => {
    const staff = await signedInStaff(app)
    const { event } = await seedEvent(app.orm)
    const set = await (
      await staffFetch(app, staff, `/staff/events/${event.id}/sets`, { method: 'POST', body: { slug: 'kiosk-wall', name: 'Kiosk Wall' } })
    ).json()
    expect(set.kioskUrl).toBe(`${app.url}/kiosk/${event.slug}/kiosk-wall`)

    const page = await fetch(set.kioskUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('cache-control')).toBe('no-cache')
    // The shell's script and stylesheet, then the kiosk's context: all asked for while the page arrives.
    const links = page.headers.get('link')!.split(', ')
    expect(links.at(-1)).toBe(`</events/${event.slug}/sets/kiosk-wall>; rel=preload; as=fetch; crossorigin=anonymous`)
    expect(links.slice(0, -1)).toEqual([
      expect.stringMatching(/^<\/kiosk\/assets\/index-[\w-]+\.js>; rel=modulepreload; crossorigin$/),
      expect.stringMatching(/^<\/kiosk\/assets\/index-[\w-]+\.css>; rel=preload; as=style; crossorigin$/),
    ])
    const policy = directives(page.headers.get('content-security-policy')!)
    expect(policy.get('default-src')).toEqual(["'self'"])
    expect(policy.get('script-src')).toEqual(["'self'"])
    expect(policy.get('script-src-attr')).toEqual(["'none'"])
    expect(policy.get('frame-ancestors')).toEqual(["'self'"])
    const html = await page.text()
    // Every script is a file of the app's own: none inline.
    expect(
      [...html.matchAll(/<script\b([^>]*)>/g)].map(([, attributes]) => /\bsrc="\/kiosk\/assets\/[\w-]+\.js"/.test(attributes!)),
    ).toEqual([true])
    expect(html).not.toMatch(/https?:\/\//)

    // Any page under /kiosk is the same shell (the app says what is wrong with an address).
    expect(await (await fetch(`${app.url}/kiosk`)).text()).toBe(html)
  })

  it("when the shell's files are asked for, then each is cached for good, gzipped when asked, and answered 304 to its ETag", async () => {
    const html = await (await fetch(`${app.url}/kiosk/demo/wall`)).text()
    const files = [...html.matchAll(/(?:src|href)="(\/kiosk\/assets\/[^"]+)"/g)].map(([, path]) => path!)
    expect(files.map((path) => path.split('.').pop()).sort()).toEqual(['css', 'js'])
    for (const path of files) {
      const plain = await fetch(`${app.url}${path}`, { headers: { 'accept-encoding': 'identity' } })
      expect(plain.status).toBe(200)
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(plain.headers.get('content-type')).toMatch(path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/)
      const bytes = Buffer.from(await plain.arrayBuffer())
      // Node's fetch asks for gzip and unzips: the same bytes, sent smaller.
      const zipped = await fetch(`${app.url}${path}`)
      expect(zipped.headers.get('content-encoding')).toBe('gzip')
      expect(Number(zipped.headers.get('content-length'))).toBeLessThan(bytes.length)
      expect(Buffer.from(await zipped.arrayBuffer()).equals(bytes)).toBe(true)
      const again = await fetch(`${app.url}${path}`, { headers: { 'if-none-match': plain.headers.get('etag')! } })
      expect(again.status).toBe(304)
    }
  })

  it('when the service worker is asked for, then it is revalidated at every start and lists the files it keeps', async () => {
    const worker = await fetch(`${app.url}/kiosk/sw.js`)
    expect(worker.status).toBe(200)
    expect(worker.headers.get('cache-control')).toBe('no-cache')
    expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    const html = await (await fetch(`${app.url}/kiosk/demo/wall`)).text()
    const source = await worker.text()
    for (const [, path] of html.matchAll(/(?:src|href)="\/kiosk\/(assets\/[^"]+)"/g)) expect(source).toContain(`"${path}"`)
    expect(source).toContain('"index.html"')
  })

  it("when a file the app does not have is asked for, then the service's JSON 404; other methods are not the app's", async () => {
    for (const path of ['/kiosk/assets/missing.js', '/kiosk/demo/wall/logo.png']) {
      const missing = await fetch(`${app.url}${path}`)
      expect(missing.status).toBe(404)
      expect(await missing.json()).toEqual({ error: 'Not Found', code: 'not_found' })
    }
    const posted = await fetch(`${app.url}/kiosk/demo/wall`, { method: 'POST' })
    expect(posted.status).toBe(404)
  })
})
