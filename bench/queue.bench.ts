/**
 * The SDK's offline queue after an outage: a kiosk queued 200 registrations while the service was
 * away (the queue's file store, as a kiosk app in Node keeps it); the service comes back and the
 * queue drains them, paced at its default (50 a minute) under the service's own limit (60
 * registrations a minute per address, left as it is). Judged: every registration made exactly one
 * session, in order, with no 429; and the time to drain against what the pace allows.
 *
 *   pnpm bench:queue                    # or: pnpm bench queue
 *   BENCH_QUEUED=50 pnpm bench:queue    # fewer, for a quicker look
 *
 * See bench/README.md.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createLogger } from '@photobooth/server/logger'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { startServer } from '@photobooth/server/server'
import { createKioskClient } from '@photobooth/sdk/kiosk'
import { createOfflineQueue } from '@photobooth/sdk/queue'
import { fileStore } from '@photobooth/sdk/queue-file'

import { reportRows, verdict } from './rows.js'
import { answerHolds, benchSettings, Broken, envNumber, obtainDatabase, onCleanup, runBenchmark } from './support.js'

// Quick mode: 3 registrations (the pace lets one through every 1.2 s).
const QUEUED = Math.round(envNumber('BENCH_QUEUED', 200, 1, 3))
/** The queue's default pace. */
const PER_MINUTE = 50

async function main(): Promise<void> {
  console.log(
    `offline queue benchmark: node ${process.version}, ${QUEUED} registrations queued during an outage, drained at ${PER_MINUTE}/min`,
  )
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-queue-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  const settings = benchSettings(dataDir, await obtainDatabase(dataDir))
  const running = await startServer({
    settings: { ...settings, delivery: { ...settings.delivery, dispatch: false } },
    logger: createLogger({ silent: true }),
  })
  onCleanup('our server', () => running.stop())
  const target = `http://127.0.0.1:${running.config.port}`
  const { sets } = await createEvent(running.orm.em.fork(), {
    slug: `bench-queue-${Date.now()}`,
    name: 'Offline queue',
    startAt: new Date(),
    sets: [{ slug: 'kiosk', name: 'Kiosk' }],
  })
  const setId = sets[0]!.id

  // The venue's link: down (connections reset) until the outage ends; each answer's status counted.
  let down = true
  const statuses = new Map<number, number>()
  const proxy = createServer((req, res) => {
    if (down) return req.socket.destroy()
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      statuses.set(answer.statusCode!, (statuses.get(answer.statusCode!) ?? 0) + 1)
      res.writeHead(answer.statusCode!, answer.headers)
      answer.pipe(res)
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  onCleanup('the venue link', () => new Promise((resolve) => proxy.close(() => resolve())))

  const queue = createOfflineQueue({
    client: createKioskClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }),
    store: fileStore(join(dataDir, 'queue')),
    perMinute: PER_MINUTE,
  })
  onCleanup('the queue', async () => queue.close())
  for (let index = 0; index < QUEUED; index++) {
    const outcome = await queue.registerGuests({
      params: { setId },
      body: { guests: [{ name: `Guest ${String(index).padStart(4, '0')}`, email: `guest${index}@queue.bench.example` }] },
    })
    if (outcome.status !== 'queued') throw new Broken(`registration ${index} was ${outcome.status} during the outage`)
  }
  console.log(`${queue.count} queued; the service is back`)
  const failed: unknown[] = []
  queue.on('failed', ({ error }) => failed.push(error))
  let sent = 0
  queue.on('sent', () => {
    if (++sent % 25 === 0) console.log(`  ${sent} sent, ${queue.count} waiting`)
  })
  const started = performance.now()
  down = false
  queue.wake()
  await queue.drained()
  const seconds = (performance.now() - started) / 1000

  const rows = await running.orm.em
    .fork()
    .execute<{ label: string }[]>('select label from session where set_id = ? order by created_at, id', [setId])
  const labels = rows.map((row) => row.label)
  const expected = Array.from({ length: QUEUED }, (_, index) => `Guest ${String(index).padStart(4, '0')}`)
  const duplicates = labels.length - new Set(labels).size
  const inOrder = labels.length === expected.length && labels.every((label, index) => label === expected[index])
  if (failed.length > 0) throw new Broken(`${failed.length} registrations failed for good: ${String(failed[0])}`)
  const tooMany = statuses.get(429) ?? 0
  // The pace allows one every 60/PER_MINUTE s, the first at once.
  const paced = ((QUEUED - 1) * 60) / PER_MINUTE
  // Every registration once, in order, none refused: an answer, not a figure (quick mode breaks on it).
  const answered = answerHolds(
    duplicates === 0 && inOrder && tooMany === 0,
    `${labels.length} sessions for ${QUEUED} queued, ${duplicates} duplicates, ${inOrder ? 'in order' : 'out of order'}, ${tooMany} answered 429`,
  )
  reportRows([
    {
      row: `${QUEUED} queued registrations drained after an outage (SDK offline queue, file store, default pace ${PER_MINUTE}/min)`,
      value: `${seconds.toFixed(1)} s`,
      figures: `${labels.length} sessions, ${duplicates} duplicates, ${inOrder ? 'in order' : 'OUT OF ORDER'}; answers ${[...statuses].map(([status, count]) => `${status}×${count}`).join(', ')}; the pace's floor ${paced.toFixed(1)} s`,
      target: `0 duplicates, in order, no 429, ≤ ${(paced * 1.05 + 5).toFixed(0)} s`,
      result: verdict(answered && seconds <= paced * 1.05 + 5),
    },
  ])
}

await runBenchmark(main)
