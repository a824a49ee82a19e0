import { createLogger } from '@photobooth/server/logger'
import { startDispatcher } from '@photobooth/server/modules/messages/dispatcher'
import { createTwilioTransport } from '@photobooth/server/modules/messages/twilio-transport'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { startFakeTwilio, type FakeProvider } from '../support/fake-providers.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { until } from '../support/until.js'

// A database of its own: no other test's pending messages are claimed here.
const databases = scratchDatabases('lease')
let app: TestServer
let twilio: FakeProvider
beforeAll(async () => {
  twilio = await startFakeTwilio()
  app = await startTestServer({ databaseUrl: await databases.create() })
})
afterAll(async () => {
  await app?.stop()
  await twilio?.close()
  await databases.dropAll()
})

describe('a provider pause longer than the lease', () => {
  it('when a 429 pauses the channel past the claimed messages’ lease, then each message still goes once', async () => {
    await makeLiveGallery(app, { guests: [1, 2, 3].map((i) => ({ name: `Guest ${i}`, phone: `+1415555020${i}` })) })
    twilio.queue({ status: 429, body: { code: 20429, message: 'Too Many Requests', more_info: '', status: 429 } })
    const dispatcher = startDispatcher({
      orm: app.orm,
      transports: {
        sms: createTwilioTransport({
          accountSid: 'AC0123456789abcdef0123456789abcdef',
          authToken: 't',
          from: '+15005550006',
          apiUrl: twilio.url,
          // Far above the fake's answer time even on a loaded machine: a timed-out request is sent again.
          timeoutMs: 10_000,
        }),
      },
      logger: createLogger({ silent: true }),
      // One request at a time, a 1 s lease and a 2.5 s pause: the two messages claimed with the
      // throttled one would wait out their lease.
      settings: {
        intervalMs: 50,
        batchSize: 10,
        retryForMs: 3_600_000,
        baseDelayMs: 20,
        maxDelayMs: 5_000,
        leaseMs: 1_000,
        concurrency: 1,
        throttleMs: 2_500,
      },
    })
    try {
      await until(
        () => app.orm.em.fork().execute<{ status: string }[]>('select status from outbox_message'),
        (rows) => rows.length === 3 && rows.every((row) => row.status === 'sent'),
      )
      await twilio.replied()
    } finally {
      await dispatcher.stop()
    }
    const recipients = twilio.requests.map((request) => new URLSearchParams(request.body).get('To'))
    // The first request was the throttled one; after it, each guest once.
    expect(recipients.slice(1).sort()).toEqual(['+14155550201', '+14155550202', '+14155550203'])
  })
})
