/**
 * The booth connector through what a venue does to it (issue 33), as processes against the real
 * service behind a TCP proxy that every byte crosses, the photos' PUTs included (the service's public
 * URL is the proxy's): the link cut mid-upload, a kill -9 mid-session and a restart; two connectors
 * on one set with groups arriving faster than the uploads finish; ten sessions of camera photos
 * waiting offline, and the connector's memory.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

import type { LocalStorage } from '@photobooth/server/modules/storage/local-storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestBoothKey, registerGuests, seedEvent, startTestServer, type TestServer } from '../support/harness.js'
import { freePort } from '../support/processes.js'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js'
import { until } from '../support/until.js'
import { cameraPhotos, event, sha256, startConnector, writeSlowly, type RunningConnector } from './booth-connector.js'

let app: TestServer
let proxy: TcpProxy
let service: string
let boothKey: string
let photos: Buffer[]
let work: string
const running: RunningConnector[] = []

/** 20 Mbit/s, a venue's uplink: camera photos take seconds each. */
const UPLINK = 2_500_000

beforeAll(async () => {
  const port = await freePort()
  proxy = await startTcpProxy({ host: '127.0.0.1', port })
  service = `http://${proxy.address}`
  app = await startTestServer({ port, publicUrl: service })
  boothKey = await createTestBoothKey(app, 'Drill booth')
  photos = await cameraPhotos(4)
  work = await mkdtemp(join(tmpdir(), 'photobooth-booth-drills-'))
}, 120_000)
afterAll(async () => {
  await Promise.all(running.map((connector) => connector.kill()))
  await proxy?.close()
  await app?.stop()
  await rm(work, { recursive: true, force: true })
})

function connect(name: string, folder: string, setId: string, more: string[] = []): RunningConnector {
  const connector = startConnector(
    [
      'folder',
      folder,
      '--service',
      service,
      '--set',
      setId,
      '--state',
      join(work, `${name}-state`),
      '--group',
      'count:4',
      '--stable',
      '0.5',
      '--name',
      name,
      ...more,
    ],
    { PHOTOBOOTH_BOOTH_KEY: boothKey },
  )
  running.push(connector)
  return connector
}

async function registered(count: number): Promise<{ setId: string; sessions: string[] }> {
  const { sets } = await seedEvent(app.orm)
  const setId = sets[0]!.id
  const sessions = []
  for (let index = 0; index < count; index++)
    sessions.push(await registerGuests(app, setId, [{ name: `Guest ${index}`, email: `guest${index}@example.org` }]))
  return { setId, sessions }
}

/** Per session, its photos' hashes in gallery order, its status and the gallery-link messages queued. */
async function delivered(sessionId: string) {
  const em = app.orm.em.fork()
  const [session] = await em.execute<{ status: string; messages: number }[]>(
    'select status, (select count(*)::int from outbox_message m where m.session_id = s.id) as messages from session s where id = ?',
    [sessionId],
  )
  const rows = await em.execute<{ storage_key: string }[]>('select storage_key from photo where session_id = ? order by position', [
    sessionId,
  ])
  const storage = app.storage as LocalStorage
  const folder = dirname(storage.pathOf(`sessions/${sessionId}/x.jpg`)!)
  const objects = (await readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.jpg'))
  return {
    ...session,
    photos: await Promise.all(rows.map(async (row) => sha256(await readFile(storage.pathOf(row.storage_key)!)))),
    objects: objects.length,
  }
}

const hashes = (indexes: number[]) => indexes.map((index) => sha256(photos[index]!))

/** The connector's resident memory (Linux), in bytes. */
const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

describe('the booth connector under a venue’s conditions', () => {
  it('when the link is cut mid-upload and the connector is killed (-9) mid-session, then after a restart every photo is stored once and every session completed once', async () => {
    const { setId, sessions } = await registered(3)
    const folder = join(work, 'cut')
    proxy.throttle(UPLINK)
    const first = connect('cut', folder, setId)
    await first.next(event('mode.ready'))
    for (const index of [0, 1, 2, 3]) await writeSlowly(join(folder, `A${index}.jpg`), photos[index]!, 50)
    // A photo is stored, the others are on their way: the link goes.
    await first.next((line) => line.event === 'upload.progress' && line.session === 1, { ms: 120_000 })
    proxy.cut()
    await first.next(event('service.away'))
    // The next group is journaled while the link is down, and the third is half taken when the PC dies.
    for (const index of [0, 1, 2, 3]) await writeSlowly(join(folder, `B${index}.jpg`), photos[(index + 1) % 4]!, 50)
    await first.next(event('session.closed', 2), { past: true })
    for (const index of [0, 1]) await writeSlowly(join(folder, `C${index}.jpg`), photos[(index + 2) % 4]!, 50)
    await first.next((line) => line.event === 'photo.taken' && line.session === 3 && line.photos === 2, { past: true })
    expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' })

    proxy.restore()
    const second = connect('cut', folder, setId)
    await second.next(event('mode.ready'))
    for (const index of [2, 3]) await writeSlowly(join(folder, `C${index}.jpg`), photos[(index + 2) % 4]!, 50)
    for (const number of [1, 2, 3]) await second.next(event('session.completed', number), { past: true, ms: 180_000 })
    proxy.throttle(undefined)

    expect(await Promise.all(sessions.map(delivered))).toEqual([
      { status: 'completed', messages: 1, photos: hashes([0, 1, 2, 3]), objects: 4 },
      { status: 'completed', messages: 1, photos: hashes([1, 2, 3, 0]), objects: 4 },
      { status: 'completed', messages: 1, photos: hashes([2, 3, 0, 1]), objects: 4 },
    ])
    expect(first.count(event('session.completed')) + second.count(event('session.completed'))).toBe(3)
    // No original lost or changed.
    const originals = Object.fromEntries(
      await Promise.all((await readdir(folder)).map(async (name) => [name, sha256(await readFile(join(folder, name)))])),
    )
    expect(Object.keys(originals).sort()).toEqual(
      ['A0', 'A1', 'A2', 'A3', 'B0', 'B1', 'B2', 'B3', 'C0', 'C1', 'C2', 'C3'].map((name) => `${name}.jpg`),
    )
    expect(originals['B0.jpg']).toBe(sha256(photos[1]!))
  }, 300_000)

  it('when two connectors serve one set and groups arrive faster than uploads finish, then each group’s photos are in a session of their own, and none is refused', async () => {
    const { setId, sessions } = await registered(4)
    proxy.throttle(UPLINK)
    const [left, right] = [join(work, 'left'), join(work, 'right')]
    const a = connect('left', left, setId, ['--group', 'count:2'])
    const b = connect('right', right, setId, ['--group', 'count:2'])
    await Promise.all([a.next(event('mode.ready')), b.next(event('mode.ready'))])
    // Four groups of two, alternating booths, each written as soon as the one before is.
    const groups: [string, number[]][] = [
      [left, [0, 1]],
      [right, [2, 3]],
      [left, [1, 2]],
      [right, [3, 0]],
    ]
    for (const [index, [folder, pair]] of groups.entries())
      for (const [position, photo] of pair.entries()) await writeSlowly(join(folder, `G${index}-${position}.jpg`), photos[photo]!, 20)
    for (const connector of [a, b])
      for (const number of [1, 2]) await connector.next(event('session.completed', number), { past: true, ms: 240_000 })
    proxy.throttle(undefined)

    const got = await Promise.all(sessions.map(delivered))
    expect(got.map((session) => [session.status, session.messages, session.objects])).toEqual(sessions.map(() => ['completed', 1, 2]))
    // Every group is one session's photos, whichever session it got.
    expect(got.map((session) => session.photos.join()).sort()).toEqual(groups.map(([, pair]) => hashes(pair).join()).sort())
    for (const connector of [a, b]) {
      expect(connector.count((line) => line.level !== 'info')).toBe(0)
      expect(JSON.stringify(connector.lines)).not.toMatch(/\b409\b|no longer active/)
    }
  }, 300_000)

  it('when ten sessions of four camera photos wait offline, then the connector holds them on disk: its memory stays within 50 MiB of idle', async () => {
    const { setId } = await registered(1)
    proxy.cut()
    try {
      const folder = join(work, 'offline')
      const connector = connect('offline', folder, setId)
      await connector.next(event('mode.ready'))
      const idle = rss(connector.child.pid!)
      for (let session = 0; session < 10; session++)
        for (const index of [0, 1, 2, 3]) await writeSlowly(join(folder, `S${session}-${index}.jpg`), photos[(index + session) % 4]!, 0, 1)
      await connector.next(event('session.closed', 10), { past: true, ms: 120_000 })
      const waiting = rss(connector.child.pid!)
      expect(waiting - idle).toBeLessThan(50 * 2 ** 20)
      // The status file is rewritten every 2 s: read until it has caught up with the cut.
      const status = await until(
        async () => JSON.parse(await readFile(join(work, 'offline-state/status.json'), 'utf8')) as { waiting: number; service: string },
        (saved) => saved.service === 'away',
      )
      expect(status).toMatchObject({ waiting: 10, service: 'away' })
      console.log(
        `connector memory: idle ${(idle / 2 ** 20).toFixed(1)} MiB, with 10 sessions (40 camera photos) waiting ${(waiting / 2 ** 20).toFixed(1)} MiB`,
      )
    } finally {
      proxy.restore()
    }
  }, 180_000)
})
