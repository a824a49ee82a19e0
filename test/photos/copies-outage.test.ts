/**
 * A storage outage is not the photo's fault: the copies worker gives the attempt back and tries
 * again once storage answers, however long it was away. Two instances on one database and one
 * bucket (the bucket behind a TCP proxy the test controls): one completes the session with its
 * worker off, the other's worker meets the outage.
 */
import { loadSettings, type Settings } from '@photobooth/server/config'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { scratchDatabases } from '../support/databases.js'
import { makeLiveGallery } from '../support/gallery-fixture.js'
import { startTestServer, type TestServer } from '../support/harness.js'
import { startFakeS3, type FakeS3 } from '../support/s3.js'
import { startTcpProxy, targetOf, type TcpProxy } from '../support/tcp-proxy.js'
import { until } from '../support/until.js'

const COPIES = loadSettings({}).copies
const databases = scratchDatabases('copies_outage')
let s3: FakeS3
let proxy: TcpProxy
const servers: TestServer[] = []

beforeAll(async () => {
  s3 = await startFakeS3()
  proxy = await startTcpProxy(targetOf(s3.endpoint))
})
afterAll(async () => {
  proxy?.restore()
  await Promise.all(servers.map((server) => server.stop()))
  await proxy?.close()
  await s3?.close()
  await databases.dropAll()
})

type PhotoRow = { image_status: string; image_attempts: number; image_error: string | null }

describe('photo copies during a storage outage', () => {
  it('when storage is cut while photos wait for their copies, then they stay queued, with no attempt spent, and are made once it is back', async () => {
    const databaseUrl = await databases.create()
    const storage: Settings['storage'] = { ...s3.settings, endpoint: proxy.through(s3.endpoint) }
    const start = async (copies: Settings['copies']) => {
      const server = await startTestServer({ databaseUrl, storage, cdnUrl: `${s3.endpoint}/photos`, copies })
      servers.push(server)
      return server
    }
    const completer = await start({ ...COPIES, work: false })
    const gallery = await makeLiveGallery(completer)
    proxy.cut()
    // One attempt at most for any other failure: an outage that spent attempts would fail them at once.
    const worker = await start({ ...COPIES, work: true, worker: { ...COPIES.worker, maxAttempts: 1, baseDelayMs: 50, intervalMs: 100 } })
    const rows = () =>
      worker.orm.em
        .fork()
        .execute<PhotoRow[]>('select image_status, image_attempts, image_error from photo where session_id = ?', [gallery.sessionId])
    const tried = await until(rows, (photos) => photos.every((photo) => photo.image_error !== null), 20_000)
    expect(tried.map((photo) => [photo.image_status, photo.image_attempts])).toEqual(tried.map(() => ['queued', 0]))
    expect(tried[0]!.image_error).toMatch(/storage unavailable/)

    proxy.restore()
    const made = await until(rows, (photos) => photos.every((photo) => photo.image_status !== 'queued'), 30_000)
    expect(made.map((photo) => photo.image_status)).toEqual(made.map(() => 'ready'))
  })
})
