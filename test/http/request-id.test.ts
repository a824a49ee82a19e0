import { ApiError, createClient, safe } from '@photobooth/sdk'
import { describe, expect, it } from 'vitest'

import { withTestServer } from '../support/harness.js'

const app = withTestServer()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('X-Request-Id', () => {
  it('when a request names none, or one that is not a UUID, then every answer carries a new one; a UUID is kept', async () => {
    const ids = await Promise.all(
      ['/openapi.json', '/gallery/nope', '/nope', '/gallery/nope/zip', '/booth/events'].map(async (path) =>
        (await fetch(`${app.url}${path}`)).headers.get('x-request-id'),
      ),
    )
    ids.forEach((id) => expect(id).toMatch(UUID))
    expect(new Set(ids).size).toBe(ids.length)
    const own = '7f0c2a8e-3b1d-4c55-9e21-6a4b8d0f1c93'
    const kept = await fetch(`${app.url}/gallery/nope`, { headers: { 'x-request-id': own.toUpperCase() } })
    expect(kept.headers.get('x-request-id')).toBe(own)
    // A client's text is not kept: it would be stored in the audit trail for a year (an email address was).
    for (const insane of ['a b', 'x'.repeat(129), 'é', 'booth-7:req-42', 'ada@example.org']) {
      const replaced = await fetch(`${app.url}/gallery/nope`, { headers: { 'x-request-id': insane } })
      expect(replaced.headers.get('x-request-id'), insane).toMatch(UUID)
    }
  })

  it('when the SDK gets an error, then it carries the answer’s request id', async () => {
    const [error] = await safe(createClient({ baseUrl: app.url }).kiosk.getContext({ eventSlug: 'nope', setSlug: 'nope' }))
    expect(error instanceof ApiError && error.requestId).toMatch(UUID)
  })
})
