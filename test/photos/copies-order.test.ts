/**
 * The order the copies worker takes photos in (issue 31): at the end of an event, sessions complete
 * at once, and a guest opening any of their links first sees its first photo. Every session's first
 * photo is claimed before any session's second.
 */
import { run } from '@photobooth/server/db/query'
import { COPIES_QUERIES } from '@photobooth/server/modules/photos/photo-copies.queries'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'

const databases = scratchDatabases('copies_order')
let app: TestServer
beforeAll(async () => {
  // A database of its own, the worker off: the claims below are the only ones.
  app = await startTestServer({
    databaseUrl: await databases.create(),
    copies: {
      work: false,
      worker: { concurrency: 1, intervalMs: 60_000, leaseMs: 60_000, maxAttempts: 3, baseDelayMs: 100 },
      linkWaitMs: 0,
    },
  })
})
afterAll(async () => {
  await app?.stop()
  await databases.dropAll()
})

describe('the copies worker’s order', () => {
  it('when three sessions of three photos complete one after the other, then the first photos of all three are taken before any second photo', async () => {
    const images = [makeJpeg(24, 16, 1), makeJpeg(16, 24, 2), makeJpeg(20, 20, 3)]
    const sessions: string[] = []
    for (let i = 0; i < 3; i++) sessions.push((await makeLiveGallery(app, { images })).sessionId)
    const claimed = await run(app.orm.em.fork(), COPIES_QUERIES.claim, [3, 60_000])
    expect(claimed.map((photo) => photo.position)).toEqual([1, 1, 1])
    expect(new Set(claimed.map((photo) => photo.session_id))).toEqual(new Set(sessions))
    // Then the rest, first come, first served, in gallery order.
    const next = await run(app.orm.em.fork(), COPIES_QUERIES.claim, [2, 60_000])
    // (An UPDATE … RETURNING answers in no set order: sorted here.)
    expect(next.map((photo) => [sessions.indexOf(photo.session_id), photo.position]).sort()).toEqual([
      [0, 2],
      [0, 3],
    ])
  })
})
