import { describe, expect, it } from 'vitest'

import { startTestServer } from '../support/harness.js'

describe('GET /docs and its assets', () => {
  it('when served over plain HTTP, then the page’s CSP does not upgrade its assets to HTTPS (a LAN address would show a blank page); over HTTPS it does', async () => {
    for (const [publicUrl, upgrades] of [
      [undefined, false],
      ['https://booth.example.com', true],
    ] as const) {
      const app = await startTestServer(publicUrl ? { publicUrl } : {})
      try {
        for (const path of ['/docs', '/docs/assets/init.js', '/docs/assets/swagger-ui-bundle.js']) {
          const response = await fetch(`${app.url}${path}`)
          expect(response.status, path).toBe(200)
          const policy = response.headers.get('content-security-policy') ?? ''
          expect(policy, path).toMatch(/script-src 'self'/)
          expect(policy.includes('upgrade-insecure-requests'), `${publicUrl} ${path}`).toBe(upgrades)
        }
      } finally {
        await app.stop()
      }
    }
  })

  it('when the page starts Swagger UI, then the filter box is on', async () => {
    const app = await startTestServer()
    try {
      const script = await (await fetch(`${app.url}/docs/assets/init.js`)).text()
      expect(script).toMatch(/\bfilter: true\b/)
    } finally {
      await app.stop()
    }
  })
})
