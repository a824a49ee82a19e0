import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { makeLiveGallery } from '../support/gallery-fixture.js'
import { withTestServer } from '../support/harness.js'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'

const app = withTestServer()

describe('a real browser beacon', () => {
  it('when a page on another origin calls navigator.sendBeacon, then the view is counted without a preflight', async () => {
    const gallery = await makeLiveGallery(app)
    const trackUrl = `${app.url}/track`
    const methods: string[] = []
    app.server.prependListener('request', (req) => {
      if (req.url === '/track') methods.push(req.method!)
    })

    // The gallery page, served from another origin (another port), reports its view the way pages do.
    const page = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>gallery</title><script>
        navigator.sendBeacon(${JSON.stringify(trackUrl)}, JSON.stringify({ kind: 'view', sessionId: ${JSON.stringify(gallery.sessionId)} }))
      </script>`)
    })
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`
    const profile = await mkdtemp(join(tmpdir(), 'photobooth-chromium-'))
    const browser = spawn(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
        pageUrl,
      ],
      { stdio: 'ignore' },
    )
    try {
      const counted = async () =>
        (
          await app.orm.em
            .fork()
            .execute<{ count: string }[]>(`select count(*) from tracking_event where session_id = ? and kind = 'view'`, [gallery.sessionId])
        )[0]!.count
      let count = '0'
      for (let waited = 0; waited < 20_000 && count === '0'; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        count = await counted()
      }
      expect(count).toBe('1')
      expect(methods).toEqual(['POST'])
    } finally {
      const exited = browser.exitCode === null && browser.signalCode === null ? once(browser, 'exit') : undefined
      browser.kill('SIGKILL')
      await exited
      await new Promise((resolve) => page.close(resolve))
      // Chromium's helper processes may still be writing into the profile for a moment after it exits.
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })
    }
  }, 120_000)
})
