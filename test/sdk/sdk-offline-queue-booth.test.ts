/**
 * What a booth app in Node needs of the offline queue (issue 33): its folder locked against a second
 * process (and taken over from one killed), queued photos read from disk rather than held in memory,
 * each queued call naming the session it acts on, the link's return noticed without the browser's
 * `online` event, and a kiosk's queue that ships none of the booth's upload code.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

import { createBoothClient } from '@photobooth/sdk/booth'
import { createOfflineQueue, type QueueEvents } from '@photobooth/sdk/queue'
import { fileStore, QueueInUseError } from '@photobooth/sdk/queue-file'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, withTestServer } from '../support/harness.js'
import { makeJpeg } from '../support/jpeg.js'
import { bundleApp } from '../support/sdk-bundle.js'
import { startVenueProxy, type VenueProxy } from '../support/venue-proxy.js'

const app = withTestServer()
const HOLDER = join(import.meta.dirname, 'fixtures/queue-holder.ts')
let directory: string
let venue: VenueProxy
const children: ChildProcess[] = []

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'photobooth-queue-booth-'))
  venue = await startVenueProxy(app.url)
})
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  await venue?.close()
  await rm(directory, { recursive: true, force: true })
})

/** The holder script in a process of its own; resolves with its first line. */
function holder(env: NodeJS.ProcessEnv, execArgv: string[] = []): { child: ChildProcess; line: Promise<string> } {
  const child = spawn(process.execPath, [...execArgv, '--import', 'tsx', HOLDER], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const line = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before a line`)))
  })
  return { child, line }
}

describe('a booth’s offline queue in Node', () => {
  it('when a second process opens the same queue folder, then it is refused; once the first is killed (-9), the folder is taken over', async () => {
    const folder = join(directory, 'locked')
    const first = holder({ QUEUE_DIR: folder })
    expect(await first.line).toBe('ready')
    expect(await holder({ QUEUE_DIR: folder }).line).toBe('in use')
    await expect(fileStore(folder).load()).rejects.toBeInstanceOf(QueueInUseError)
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    first.child.kill('SIGKILL')
    await exited
    const store = fileStore(folder)
    expect(await store.load()).toEqual([])
    store.close?.()
  })

  it('when ten sessions of four 6 MB photos are queued offline, then the photos stay on disk: the process holds less than 50 MiB more than idle, and each call names its session', async () => {
    const { line } = holder({ QUEUE_DIR: join(directory, 'memory'), QUEUE_PHOTOS: '10x4x6' }, ['--expose-gc'])
    const report = JSON.parse(await line) as { idle: number; queued: number; count: number; sessions: string[] }
    expect(report.count).toBe(10)
    expect(report.sessions).toEqual(Array.from({ length: 10 }, (_, index) => `session${String(index).padStart(17, '0')}`))
    expect(report.queued - report.idle).toBeLessThan(50 * 2 ** 20)
  }, 60_000)

  it('when the link comes back, then the queue notices by asking the service, and sends within seconds rather than after its 30 s pause', async () => {
    const { sets } = await seedEvent(app.orm)
    const sessionId = await registerGuests(app, sets[0]!.id, [{ name: 'Probe', email: 'probe@example.org' }])
    const boothKey = await createTestBoothKey(app)
    const client = createBoothClient({
      baseUrl: venue.url,
      boothKey,
      retry: false,
      uploadUrl: (url) => url.replace(new URL(app.url).origin, venue.url),
    })
    const queue = createOfflineQueue({
      client,
      store: fileStore(join(directory, 'probe')),
      retry: { minDelayMs: 30_000, maxDelayMs: 30_000 },
    })
    try {
      venue.network = 'down'
      const waiting = new Promise((resolve) => queue.on('waiting', resolve))
      expect(await queue.uploadPhotos(sessionId, [makeJpeg(16, 12, 1), makeJpeg(12, 16, 2)])).toMatchObject({ status: 'queued' })
      expect(queue.list()).toEqual([expect.objectContaining({ route: 'booth.uploadPhotos', sessionId })])
      await waiting
      const sent = new Promise<QueueEvents['sent']>((resolve) => queue.on('sent', resolve))
      const back = performance.now()
      venue.network = 'up'
      const event = await sent
      expect(performance.now() - back).toBeLessThan(10_000)
      // The route narrows the result: an upload's is the completed session.
      if (event.route !== 'booth.uploadPhotos') throw new Error(`sent ${event.route}`)
      expect([event.call.sessionId, event.result.status, event.result.photos.length]).toEqual([sessionId, 'completed', 2])
    } finally {
      queue.close()
      venue.network = 'up'
    }
  }, 40_000)

  it('when a kiosk app bundles the offline queue, then it ships none of the booth’s upload code', async () => {
    const { shipped } = await bundleApp(
      [
        "import { createKioskClient } from './src/kiosk.ts'",
        "import { createOfflineQueue, indexedDbStore } from './src/queue.ts'",
        'const queue = createOfflineQueue({ client: createKioskClient({ baseUrl: location.origin }), store: indexedDbStore() })',
        "console.log(await queue.registerGuests({ params: { setId: 'x' }, body: { guests: [{ name: 'Ada', email: 'ada@example.org' }] } }))",
      ].join('\n'),
    )
    expect(shipped.map(([path]) => path).filter((path) => /[/\\]upload\b/.test(path))).toEqual([])
  })
})
