/**
 * CDN_PURGE_URL: an operator whose CDN caches photos is told of each session's photos deleted from
 * storage, and a hook that fails keeps the deletion queued until it has been told.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { copiesSettled, makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { signedInStaff, staffFetch, type StaffSession } from '../support/staff.js'

/** The operator's hook: records each call's body, answers `status`. */
let status = 204
const calls: unknown[] = []
let hook: Server
let app: TestServer
let staff: StaffSession
beforeAll(async () => {
  hook = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      calls.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
  app = await startTestServer({ cdnPurgeUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/purge` })
  staff = await signedInStaff(app)
})
afterAll(async () => {
  await app?.stop()
  await new Promise((resolve) => hook?.close(resolve))
})

const queued = async () =>
  (await app.orm.em.fork().execute<{ prefix: string }[]>('select prefix from storage_deletion order by prefix')).map((row) => row.prefix)

describe('CDN_PURGE_URL', () => {
  it("when a session is deleted, then the hook is told its photos' URL prefix once they are gone from storage", async () => {
    const gallery = await makeLiveGallery(app)
    await copiesSettled(app, gallery.sessionId)
    calls.length = 0
    expect((await staffFetch(app, staff, `/staff/sessions/${gallery.sessionId}`, { method: 'DELETE' })).status).toBe(200)
    expect(calls).toEqual([{ prefixes: [`${app.config.cdnUrl}/sessions/${gallery.sessionId}/`] }])
    expect(await queued()).toEqual([])
  })

  it('when the hook fails, then the deletion stays queued, and the next deletion tells it both', async () => {
    const [first, second] = [await makeLiveGallery(app), await makeLiveGallery(app)]
    await Promise.all([copiesSettled(app, first.sessionId), copiesSettled(app, second.sessionId)])
    status = 500
    expect((await staffFetch(app, staff, `/staff/sessions/${first.sessionId}`, { method: 'DELETE' })).status).toBe(200)
    expect(await queued()).toEqual([`sessions/${first.sessionId}/`])
    status = 204
    calls.length = 0
    expect((await staffFetch(app, staff, `/staff/sessions/${second.sessionId}`, { method: 'DELETE' })).status).toBe(200)
    expect(calls).toEqual(
      expect.arrayContaining([
        { prefixes: [`${app.config.cdnUrl}/sessions/${first.sessionId}/`] },
        { prefixes: [`${app.config.cdnUrl}/sessions/${second.sessionId}/`] },
      ]),
    )
    expect(await queued()).toEqual([])
  })
})
