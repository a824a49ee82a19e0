/**
 * The booth connector over a venue's uplink: ten camera photos (about 6 MB each) in a hot folder,
 * delivered by the connector (apps/booth, a process of its own, folder mode) through a TCP proxy
 * throttled to 20 Mbit/s that every byte to the service crosses, the photos' PUTs included. Judged:
 * the connector's time, from the session whole on disk to completed (the claim, the upload targets,
 * ten PUTs, the completion), against the raw transfer of the same bytes through the same link (ten
 * plain PUTs, three at a time as the connector sends them, to a server that only reads them).
 *
 *   pnpm bench:booth                 # or: pnpm bench booth
 *   BENCH_UPLINK_MBIT=50 pnpm bench:booth
 *   BENCH_BOOTH_PHOTOS=4 pnpm bench:booth
 *
 * See bench/README.md.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { createBoothKey } from '@photobooth/server/modules/booth-keys/booth-keys.service'
import { createEvent } from '@photobooth/server/modules/events/events.service'
import { createLogger } from '@photobooth/server/logger'
import { startServer } from '@photobooth/server/server'

import { event, startConnector } from '../test/apps/booth-connector.js'
import { startTcpProxy } from '../test/support/tcp-proxy.js'
import { reportRows, verdict } from './rows.js'
import { benchSettings, Broken, cameraPhoto, envNumber, freePort, obtainDatabase, onCleanup, runBenchmark } from './support.js'

// Quick mode: two photos through a 200 Mbit/s link.
const PHOTOS = Math.round(envNumber('BENCH_BOOTH_PHOTOS', 10, 1, 2))
const MBIT = envNumber('BENCH_UPLINK_MBIT', 20, 1, 200)
const RATE = (MBIT * 1e6) / 8
/** PUTs at once: the SDK's upload's default, which the connector uses. */
const CONCURRENCY = 3

async function main(): Promise<void> {
  console.log(`booth connector benchmark: node ${process.version}, ${PHOTOS} camera photos through a ${MBIT} Mbit/s link`)
  const dataDir = await mkdtemp(join(tmpdir(), 'photobooth-booth-bench-'))
  onCleanup('temp data folder', () => rm(dataDir, { recursive: true, force: true }))
  // Every other one turned by EXIF, as a portrait booth's are; made one after the other (each holds frames of 54 MB).
  const photos: Buffer[] = []
  for (let i = 0; i < PHOTOS; i++) photos.push(await cameraPhoto({ seed: i + 1, orientation: i % 2 ? 6 : 1 }))
  const bytes = photos.reduce((sum, photo) => sum + photo.length, 0)
  console.log(`${PHOTOS} photos, ${(bytes / 1e6).toFixed(1)} MB; the link's floor ${(bytes / RATE).toFixed(1)} s`)

  // The raw transfer: the same bytes PUT through the same throttled link to a server that only reads them.
  const sink = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200).end())
  })
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  onCleanup('the sink', () => new Promise((resolve) => sink.close(() => resolve())))
  const rawLink = await startTcpProxy({ host: '127.0.0.1', port: (sink.address() as AddressInfo).port })
  onCleanup('the raw link', () => rawLink.close())
  rawLink.throttle(RATE)
  const rawStarted = performance.now()
  let next = 0
  const put = (photo: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: rawLink.host,
          port: rawLink.port,
          method: 'PUT',
          path: '/photo.jpg',
          headers: { 'content-type': 'image/jpeg', 'content-length': photo.length },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve())
        },
      )
      req.on('error', reject)
      req.end(photo)
    })
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < photos.length) await put(photos[next++]!)
    }),
  )
  const raw = (performance.now() - rawStarted) / 1000

  // The service behind its own throttled link, its public URL the link's, so that the presigned PUTs cross it.
  const port = await freePort()
  const link = await startTcpProxy({ host: '127.0.0.1', port })
  onCleanup('the venue link', () => link.close())
  const settings = benchSettings(dataDir, await obtainDatabase(dataDir))
  const running = await startServer({
    settings: { ...settings, port, publicUrl: `http://${link.address}`, delivery: { ...settings.delivery, dispatch: false } },
    logger: createLogger({ silent: true }),
  })
  onCleanup('our server', () => running.stop())
  const { sets } = await createEvent(running.orm.em.fork(), {
    slug: `bench-booth-${Date.now()}`,
    name: 'Booth connector',
    startAt: new Date(),
    sets: [{ slug: 'booth', name: 'Booth' }],
  })
  const { key } = await createBoothKey(running.orm.em.fork(), 'Bench booth')
  const register = await fetch(`${running.url}/sets/${sets[0]!.id}/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ guests: [{ name: 'Bench Guest', email: 'guest@booth.bench.example' }] }),
  })
  if (register.status !== 201) throw new Broken(`registration answered ${register.status}`)

  link.throttle(RATE)
  const folder = join(dataDir, 'hot')
  const connector = startConnector(
    [
      'folder',
      folder,
      '--service',
      `http://${link.address}`,
      '--set',
      sets[0]!.id,
      '--state',
      join(dataDir, 'state'),
      '--group',
      `count:${PHOTOS}`,
      '--stable',
      '0.3',
    ],
    { PHOTOBOOTH_BOOTH_KEY: key },
  )
  onCleanup('the connector', async () => void (await connector.kill()))
  await connector.next(event('mode.ready'))
  for (const [index, photo] of photos.entries()) await writeFile(join(folder, `IMG_${String(index).padStart(4, '0')}.JPG`), photo)
  await connector.next(event('session.closed', 1), { past: true, ms: 120_000 })
  const closedAt = performance.now()
  await connector.next(event('session.completed', 1), { past: true, ms: 600_000 })
  const delivered = (performance.now() - closedAt) / 1000
  const [row] = await running.orm.em
    .fork()
    .execute<{ status: string; photos: number }[]>('select status, photo_count as photos from session where set_id = ?', [sets[0]!.id])
  if (row?.status !== 'completed' || row.photos !== PHOTOS) throw new Broken(`the session is ${row?.status} with ${row?.photos} photos`)

  const ratio = delivered / raw
  reportRows([
    {
      row: `Booth connector: ${PHOTOS} camera photos through a ${MBIT} Mbit/s uplink, connector time ÷ raw transfer time`,
      value: `${ratio.toFixed(2)}×`,
      figures: `connector ${delivered.toFixed(1)} s (session whole on disk → completed: claim, targets, ${PHOTOS} PUTs ${CONCURRENCY} at a time, completion); raw PUTs ${raw.toFixed(1)} s; ${(bytes / 1e6).toFixed(1)} MB, the link's floor ${(bytes / RATE).toFixed(1)} s`,
      target: '≤ 1.10×',
      result: verdict(ratio <= 1.1),
    },
  ])
}

await runBenchmark(main)
